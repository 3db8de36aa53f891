// Package tokens counts the tokens of text the way the model's tokenizer
// would, offline: the vocabularies are embedded in the binary
// (github.com/tiktoken-go/tokenizer), so a worker never downloads one at
// run time. Activities and the config check count with it; workflow code
// never does (it decides from the counts activities recorded).
//
// Users: the token window and budgets, docs/model.md.
package tokens
