package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/client"
)

// reportURL says whether --report names a collector to post to rather
// than a file.
func reportURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// pushReport posts the JSON report to rawURL under the agent's network
// policy p (a kiosk allowed to reach only public https agents reaches only
// public https collectors), offering <host>-<UTC time>.json as its name. It
// returns the exit status: 0 when the collector took it.
func pushReport(ctx context.Context, e *env, rep *accept.Report, rawURL string, p *client.Policy) int {
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		fmt.Fprintf(e.Stderr, "acbridge: encoding the report: %v\n", err)
		return 1
	}
	if err := client.Post(ctx, rawURL, b.Bytes(), p, &client.PostOptions{FileName: rep.FileName(".json")}); err != nil {
		fmt.Fprintf(e.Stderr, "acbridge: posting the report: %v; the report was not kept: run again with --report DIR to keep it on the kiosk\n", err)
		return 1
	}
	// The query may carry the collector's credential: not printed.
	shown := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		shown = u.Scheme + "://" + u.Host + u.Path
	}
	fmt.Fprintf(e.Stdout, "report: posted to %s\n", shown)
	return 0
}
