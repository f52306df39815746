package codesearch

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a walk leaves a goroutine behind, a
// cancelled one included.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
