package setup

import (
	"fmt"
	"os"

	"github.com/BurntSushi/toml"
)

// answerKeys are the keys of an answers file, for the error of an unknown
// one.
const answerKeys = "reader, camera, microphone, speaker, gpio_chip, buttons, agent_url, token_file, keystore, accept"

// ReadAnswers reads an answers file (TOML). An unknown key is refused, so
// that a misspelt answer is not silently left unanswered.
func ReadAnswers(path string) (*Answers, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("answers: %w", err)
	}
	var a Answers
	md, err := toml.Decode(string(b), &a)
	if err != nil {
		return nil, fmt.Errorf("answers %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("answers %s: unknown key %q (keys: %s)", path, und[0].String(), answerKeys)
	}
	return &a, nil
}
