//go:build !linux

package child

import "syscall"

// dieWithParent does nothing where the kernel cannot end a child with its
// parent: there, only Stop ends it.
func dieWithParent(*syscall.SysProcAttr, syscall.Signal) {}
