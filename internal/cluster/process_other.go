//go:build !linux

package cluster

import "syscall"

// dieWithUs does nothing where the kernel cannot kill a child with its
// parent: there, only Stop ends the cluster's servers.
func dieWithUs(*syscall.SysProcAttr) {}
