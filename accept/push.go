package accept

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/agentcall/acbridge/client"
)

// IsCollectorURL says whether a --report value names a collector to post
// to rather than a file or directory.
func IsCollectorURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// Post sends the JSON report to the collector at rawURL under the agent's
// network policy p (a kiosk allowed to reach only public https agents
// reaches only public https collectors), offering FileName(".json") as its
// name. It returns the URL as it may be shown: without the query, which
// may carry the collector's credential.
func (r *Report) Post(ctx context.Context, rawURL string, p *client.Policy) (shown string, err error) {
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		return "", fmt.Errorf("encoding the report: %w", err)
	}
	if err := client.Post(ctx, rawURL, b.Bytes(), p, &client.PostOptions{FileName: r.FileName(".json")}); err != nil {
		return "", fmt.Errorf("posting the report: %w; the report was not kept: run again with --report DIR to keep it on the kiosk", err)
	}
	shown = rawURL
	if u, err := url.Parse(rawURL); err == nil {
		shown = u.Scheme + "://" + u.Host + u.Path
	}
	return shown, nil
}
