package child

import "syscall"

// dieWithParent has the kernel send sig to the child when the parent
// exits.
func dieWithParent(attr *syscall.SysProcAttr, sig syscall.Signal) { attr.Pdeathsig = sig }
