package fastkeccak

// The permutations are generated, never edited by hand. The generators live
// in _asm, a module of their own so that avo stays out of this module's
// dependencies. Run `go generate ./fastkeccak/` after changing one; CI checks
// that the committed files match.
//
//go:generate sh -c "cd _asm && go run ./generic -out ../keccakf_generic.go"
//go:generate sh -c "cd _asm && go run ./amd64 -out ../keccakf_amd64.s"
//go:generate sh -c "cd _asm && go run ./arm64 -out ../keccakf_arm64.s"
//go:generate sh -c "cd _asm && go run ./amd64batch -out ../batch_amd64.s"
//go:generate sh -c "cd _asm && go run ./arm64batch -out ../batch_arm64.s"
