package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// terminal is a pseudo-terminal for running the command as if on a
// terminal: the command gets the slave side, the test reads and writes the
// master side.
type terminal struct {
	master, slave *os.File
	out           chan []byte // everything the command wrote to the terminal, once the master reads EOF
}

// openTerminal opens a pseudo-terminal of the given width, or skips the
// test where there is none.
func openTerminal(t *testing.T, cols int) *terminal {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Skipf("no pseudo-terminal: unlocking: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Skipf("no pseudo-terminal: %v", err)
	}
	slave, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)}); err != nil {
		t.Fatalf("setting the terminal's width: %v", err)
	}
	term := &terminal{master: master, slave: slave, out: make(chan []byte, 1)}
	go func() {
		var buf bytes.Buffer
		_, _ = io.Copy(&buf, master) // ends with EIO once the slave is closed on both sides
		term.out <- buf.Bytes()
	}()
	t.Cleanup(func() { master.Close(); slave.Close() })
	return term
}

// run runs the command with the terminal as its standard error and, if
// stdinTerminal, its standard input; input is then typed into the terminal
// once the command has started. It returns the command's standard output and
// what it wrote to the terminal.
func (term *terminal) run(t *testing.T, stdinTerminal bool, input string, args ...string) (stdout, onTerminal string, code int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Dir = t.TempDir()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, term.slave
	if stdinTerminal {
		cmd.Stdin = term.slave
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if input != "" {
		time.Sleep(200 * time.Millisecond) // let it print its hint first
		if _, err := term.master.WriteString(input); err != nil {
			t.Fatal(err)
		}
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	term.slave.Close()
	select {
	case b := <-term.out:
		onTerminal = string(b)
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal's output did not end")
	}
	return out.String(), onTerminal, cmd.ProcessState.ExitCode()
}
