package kiosk_test

import (
	"bufio"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/poll"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/notice"
)

// alias is an objectRef alias the page must never show, in whole or in
// the halves an agent may split it into.
const alias = "k7p2q3r4s5t6u7v2w3x4y5z6ab"

func checkNoAlias(t *testing.T, raw string) {
	t.Helper()
	for _, part := range []string{alias, alias[:13], alias[13:]} {
		if strings.Contains(raw, part) {
			t.Fatalf("the page shows %q of an objectRef:\n%s", part, raw)
		}
	}
	if !strings.Contains(raw, "(object)") {
		t.Fatalf("no masked reference in:\n%s", raw)
	}
}

// The mask runs on the assembled text: an agent that splits the URN across
// deltas, or hides a zero-width character in it, still gets it masked.
func TestObjectRefEvasionsAreMasked(t *testing.T) {
	for name, pieces := range map[string][]string{
		"split in the alias":        {"I know urn:agentcall:object:" + alias[:13], alias[13:] + " well"},
		"split in the prefix":       {"I know urn:agentcall:obj", "ect:" + alias + " well"},
		"split after the prefix":    {"I know urn:agentcall:object:", alias + " well"},
		"one character at a time":   strings.Split("I know urn:agentcall:object:"+alias+" well", ""),
		"zero-width space":          {"I know urn:agentcall:object:\u200b" + alias + " well"},
		"zero-width in the prefix":  {"I know urn:agent\u200dcall:object\u2060:" + alias[:5] + "\ufeff" + alias[5:]},
		"zero-width between deltas": {"I know urn:agentcall:object:", "\u200b", alias[:9] + "\u00ad", alias[9:]},
		"upper case":                {"I know URN:AGENTCALL:OBJECT:" + strings.ToUpper(alias[:13]), strings.ToUpper(alias[13:])},
	} {
		t.Run(name, func(t *testing.T) {
			s := startKiosk(t, nil)
			s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example"})
			for _, p := range pieces {
				s.Display(notice.Notice{Kind: notice.AgentText, Text: p})
			}
			raw := strings.ToLower(readState(t, s))
			checkNoAlias(t, raw)
			if !strings.Contains(raw, "i know (object)") {
				t.Fatalf("text around the reference lost:\n%s", raw)
			}
		})
	}
}

// Prompts and other lines are masked the same way.
func TestObjectRefInPromptIsMasked(t *testing.T) {
	s := startKiosk(t, nil)
	s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example"})
	s.Display(notice.Notice{Kind: notice.Prompt, Control: "scan", Text: "Is it urn:agentcall:object:\u200b" + alias + "?"})
	checkNoAlias(t, readState(t, s))
}

// Many local connections that send a POST's headers and then stall in its
// body are cut off once the body deadline passes, whether the handler
// reads the body or refuses the request first, and the server's goroutines
// and memory go back to where they were.
func TestStalledBodiesAreCutOff(t *testing.T) {
	const conns = 200
	s := startKiosk(t, &kiosk.Options{BodyTimeout: 500 * time.Millisecond})
	tok := kioskToken(t, s)
	addr := strings.TrimSuffix(strings.TrimPrefix(s.URL(), "http://"), "/")
	origin := strings.TrimSuffix(s.URL(), "/")

	settle := func() (int, uint64) {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return runtime.NumGoroutine(), m.HeapInuse
	}
	g0, h0 := settle()

	heads := []string{
		// Passes every check: the handler reads the body and stalls.
		"POST /api/say HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nX-Acbridge-Token: " + tok + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"te",
		// Refused before the body: the server drains it and stalls.
		"POST /api/press HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
		// Chunked, never finished.
		"POST /api/focus HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nX-Acbridge-Token: " + tok + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"pag",
		// A GET with a body that never ends.
		"GET / HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nContent-Length: 1000\r\n\r\nx",
	}
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for i := 0; i < conns; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
		if _, err := fmt.Fprintf(c, heads[i%len(heads)], addr, origin); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	cut := make(chan time.Duration, conns)
	for _, c := range open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Read whatever the server answers until it closes.
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			r := bufio.NewReader(c)
			for {
				if _, err := r.ReadByte(); err != nil {
					cut <- time.Since(start)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(cut)
	var worst time.Duration
	for d := range cut {
		worst = max(worst, d)
	}
	if worst > 15*time.Second {
		t.Fatalf("a stalled request was held %s (body timeout 0.5 s)", worst)
	}
	t.Logf("%d stalled requests, all cut off within %s", conns, worst.Round(time.Millisecond))
	for _, c := range open {
		c.Close()
	}
	var g1 int
	var h1 uint64
	// The runtime's goroutine count settles as the cut connections'
	// goroutines return; nothing signals the last of them.
	poll.Until(10*time.Second, 100*time.Millisecond, func() bool {
		g1, h1 = settle()
		return g1 <= g0+5
	})
	t.Logf("goroutines %d -> %d, heap in use %d KiB -> %d KiB", g0, g1, h0>>10, h1>>10)
	if g1 > g0+5 {
		t.Errorf("goroutines %d -> %d after the stalled requests were cut", g0, g1)
	}
	if h1 > h0+8<<20 {
		t.Errorf("heap in use grew from %d KiB to %d KiB", h0>>10, h1>>10)
	}
}

// The page masks the aliases the kiosk sent, however the agent spells them
// around or inside: a pattern for the URN alone lets each of these through.
func TestSentAliasIsMaskedHoweverEchoed(t *testing.T) {
	const canary = "canaryo2k7p3q4r5s6t7u2v3w4"
	const urn = "urn:agentcall:object:"
	cyr := strings.ReplaceAll(canary, "o", "о") // Cyrillic о
	for name, c := range map[string]struct{ text, shown string }{
		"after a space":      {urn + " " + canary, canary},
		"after a newline":    {urn + "\n" + canary, canary},
		"after a tab":        {urn + "\t" + canary, canary},
		"fullwidth colon":    {"urn:agentcall:object：" + canary, canary},
		"Cyrillic o (URN)":   {"urn:agentcall:оbject:" + canary, canary},
		"Cyrillic o (alias)": {urn + cyr, cyr},
		"combining mark":     {urn + canary[:6] + "\u0301" + canary[6:], canary[6:]},
		"percent-encoded":    {"urn%3Aagentcall%3Aobject%3A" + canary, canary},
		"alias alone":        {"your tag is " + canary + ".", canary},
		"spaced out":         {"your tag is " + canary[:9] + " " + canary[9:18] + " " + canary[18:], canary[9:18]},
		"fullwidth alias":    {"your tag is ｃａｎａｒｙｏ２ｋ７ｐ３ｑ４ｒ５ｓ６ｔ７ｕ２ｖ３ｗ４", "ｐ３ｑ４"},
		"upper case":         {"your tag is " + strings.ToUpper(canary), strings.ToUpper(canary)},
	} {
		t.Run(name, func(t *testing.T) {
			s := startKiosk(t, nil)
			s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example"})
			s.Mask(urn + canary)
			s.Display(notice.Notice{Kind: notice.AgentText, Text: "I know " + c.text + " well"})
			s.Display(notice.Notice{Kind: notice.RunDone})
			s.Display(notice.Notice{Kind: notice.Prompt, Control: "scan", Text: "Is it " + c.text + "?"})
			raw := readState(t, s)
			for _, part := range []string{canary, canary[:13], canary[13:], c.shown} {
				if strings.Contains(raw, part) {
					t.Fatalf("the page shows %q of a sent alias:\n%s", part, raw)
				}
			}
			if strings.Count(raw, "(object)") < 2 || !strings.Contains(raw, "I know ") || !strings.Contains(raw, " well") {
				t.Fatalf("not masked in place in:\n%s", raw)
			}
		})
	}
	// Ordinary text and an alias the kiosk never sent are left alone.
	s := startKiosk(t, nil)
	s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example"})
	s.Mask(urn + canary)
	s.Display(notice.Notice{Kind: notice.AgentText, Text: "a canary sings; abcdefgh2345 stays"})
	if raw := readState(t, s); !strings.Contains(raw, "a canary sings; abcdefgh2345 stays") {
		t.Fatalf("ordinary text changed:\n%s", raw)
	}
}
