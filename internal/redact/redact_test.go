package redact

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

const canary = "tok-CANARY-5e2b9"

func TestString(t *testing.T) {
	s := New("", canary)
	for in, want := range map[string]string{
		"no secret":        "no secret",
		"Bearer " + canary: "Bearer [token]",
		"x" + strings.ToLower(canary) + canary + "y":              "x[token][token]y",
		"Authorization: BEARER " + strings.ToUpper(canary) + " é": "Authorization: BEARER [token] é",
	} {
		if got := s.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	var none *Secrets
	if none.String(canary) != canary || New().String(canary) != canary {
		t.Error("an empty set changed text")
	}
}

func TestError(t *testing.T) {
	s := New(canary)
	base := io.ErrUnexpectedEOF
	err := s.Error(errors.Join(errors.New("header "+canary), base))
	if strings.Contains(err.Error(), canary) || !strings.Contains(err.Error(), Mark) {
		t.Errorf("error text %q", err)
	}
	if !errors.Is(err, base) {
		t.Error("the redacted error lost its chain")
	}
	if s.Error(nil) != nil || s.Error(base) != base {
		t.Error("an error without the secret was replaced")
	}
}

func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(New(canary).Handler(slog.NewTextHandler(&buf, nil)))
	log = log.With("agent", "https://"+canary+".example")
	log.WithGroup("g").Warn("refused: "+canary, "err", errors.New("body "+canary), "s", canary,
		"any", []string{canary}, slog.Group("inner", "x", canary), "n", 3)
	if out := buf.String(); strings.Contains(strings.ToLower(out), strings.ToLower(canary)) {
		t.Errorf("the log carries the token: %s", out)
	} else if strings.Count(out, Mark) != 6 || !strings.Contains(out, "n=3") {
		t.Errorf("want 6 marks and the other attributes: %s", out)
	}
}
