package readstate_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	sidecar "steerable.dev/sidecar"
)

func TestContractVersionVectors(t *testing.T) {
	var c struct {
		Version struct {
			Algorithm string `json:"algorithm"`
			Vectors   []struct {
				Name, Content, Version string
			} `json:"vectors"`
		} `json:"version"`
	}
	if err := json.Unmarshal(sidecar.Contract, &c); err != nil {
		t.Fatal(err)
	}
	if c.Version.Algorithm != "sha256" || len(c.Version.Vectors) < 5 {
		t.Fatalf("contract version section = %+v", c.Version)
	}
	for _, v := range c.Version.Vectors {
		sum := sha256.Sum256([]byte(v.Content))
		if got := hex.EncodeToString(sum[:]); got != v.Version {
			t.Errorf("%s: sha256 = %s, contract says %s", v.Name, got, v.Version)
		}
	}
}
