package replay

// The release line (docs/deploying.md, "Release line"): the histories in
// testsuite/histories/<release> were recorded by runs of that release.
// This code must replay the supported releases' histories; an unversioned
// worker of it upgrades runs those releases started. Recording is the
// release this tree becomes: new histories are recorded there.
var Supported = []string{"v0.1", "v0.2"}

// Recording is the release this tree's recorded histories belong to.
const Recording = "v0.2"

// Retired is the folder of histories no supported release needs: kept as
// recorded, never replayed (the changes they need are retired).
const Retired = "retired"
