package cluster

import "syscall"

// dieWithUs has the kernel kill the child when this process exits.
func dieWithUs(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
