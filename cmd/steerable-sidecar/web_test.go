package main

import (
	"errors"
	"testing"
)

// TestDownloader: the first of curl, wget and python3 that PATH holds, or
// none; web_fetch's refusals name only that one.
func TestDownloader(t *testing.T) {
	tests := []struct {
		installed []string
		want      string
	}{
		{[]string{"curl", "wget", "python3"}, "curl"},
		{[]string{"wget", "python3"}, "wget"},
		{[]string{"python3"}, "python3"}, // the Docker image
		{[]string{"aria2c"}, ""},
		{nil, ""},
	}
	for _, tc := range tests {
		look := func(name string) (string, error) {
			for _, n := range tc.installed {
				if n == name {
					return "/usr/bin/" + n, nil
				}
			}
			return "", errors.New("not found")
		}
		if got := downloader(look); got != tc.want {
			t.Errorf("installed %v: %q, want %q", tc.installed, got, tc.want)
		}
	}
}
