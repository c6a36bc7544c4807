package main

import (
	"os"
	"strings"
	"testing"
)

// README's command table has a row for every command acbridge has.
func TestReadmeListsEveryCommand(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for name := range commands {
		if !strings.Contains(string(b), "| `acbridge "+name) {
			t.Errorf("README's command table has no row for acbridge %s", name)
		}
	}
}
