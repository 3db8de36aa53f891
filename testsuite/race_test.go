//go:build race

package testsuite

func init() { raceDetector = true }
