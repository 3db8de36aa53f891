package refs

// SameDecimal exposes sameDecimal to the tests.
var SameDecimal = sameDecimal
