package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// PostOptions are the optional parts of a Post.
type PostOptions struct {
	// ContentType of the body (default application/json).
	ContentType string
	// FileName, if set, is offered to the receiver in a
	// Content-Disposition header, so that a collector can store many
	// kiosks' bodies under their own names.
	FileName string
}

// maxPostAnswer bounds what is read of the receiver's answer: only its
// status matters, and the body is drained so the connection can close
// cleanly.
const maxPostAnswer = 64 << 10

// Post sends body to rawURL with one HTTP POST under the network policy p,
// the one the agent is reached under (nil: the production policy: https,
// public addresses), without following redirects. Any status other than
// 2xx is an error naming it. No credentials are sent.
func Post(ctx context.Context, rawURL string, body []byte, p *Policy, o *PostOptions) error {
	p = p.orDefault()
	var opts PostOptions
	if o != nil {
		opts = *o
	}
	if opts.ContentType == "" {
		opts.ContentType = "application/json"
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("client: the URL must be absolute, like https://reports.example/acbridge")
	}
	if u.Fragment != "" {
		return fmt.Errorf("client: the URL must not carry a fragment")
	}
	t, err := p.resolve(ctx, u)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, p.TotalTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("client: post request: %w", err)
	}
	req.Header.Set("Content-Type", opts.ContentType)
	if opts.FileName != "" {
		req.Header.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", opts.FileName))
	}
	resp, err := p.httpClient(t).Do(req)
	if err != nil {
		// url.Error repeats the whole URL, whose query may hold the
		// collector's key.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("client: posting to %s: %w", origin(u), err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxPostAnswer))
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return refuse("the post to %s was redirected (HTTP %d); redirects are not followed: use the final URL", origin(u), resp.StatusCode)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return fmt.Errorf("client: %s answered the post with HTTP %d", origin(u), resp.StatusCode)
	}
	return nil
}
