package setup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/station"
)

// maxLine bounds an answer: a line longer than this is refused, not kept.
const maxLine = 4096

// asker reads answers line by line from Options.In, or takes them from
// Options.Answers.
type asker struct {
	o  *Options
	in *bufio.Reader
}

func newAsker(o *Options) *asker {
	a := &asker{o: o}
	if o.In != nil {
		a.in = bufio.NewReaderSize(o.In, maxLine)
	}
	return a
}

// errNoInput is the answer of a closed or missing input.
var errNoInput = errors.New("the input ended before every question was answered (use --answers FILE for a scripted setup)")

// line prints prompt and reads one line, without its end.
func (a *asker) line(prompt string) (string, error) {
	fmt.Fprint(a.o.Out, prompt)
	if a.in == nil {
		return "", errNoInput
	}
	s, err := a.in.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", fmt.Errorf("an answer is longer than %d bytes", maxLine)
	}
	if err != nil && (len(s) == 0 || !errors.Is(err, io.EOF)) {
		if errors.Is(err, io.EOF) {
			return "", errNoInput
		}
		return "", err
	}
	return strings.TrimSpace(string(s)), nil
}

// secret reads a line with the terminal's echo off when In is one.
func (a *asker) secret(prompt string) (string, error) {
	if f, ok := a.o.In.(*os.File); ok {
		if restore, err := echoOff(f); err == nil {
			defer func() {
				restore()
				fmt.Fprintln(a.o.Out) // the Enter that was not echoed
			}()
		}
	}
	return a.line(prompt)
}

// choice is one device a question offers.
type choice struct {
	driver string // reader choices: the nfc.driver
	name   string // what goes in the configuration
	label  string // the line shown
}

func readerChoices(ctx context.Context, o *Options) []choice {
	var out []choice
	for _, d := range o.Readers {
		if d.List.List == nil {
			continue
		}
		devs, err := d.List.List(ctx)
		if err != nil {
			fmt.Fprintf(o.Out, "  (%s: %v)\n", d.List.Title, err)
		}
		for _, dev := range devs {
			out = append(out, choice{driver: d.Name, name: dev.Name, label: fmt.Sprintf("%s  (nfc.driver = %q)%s", dev.Name, d.Name, describe(dev))})
		}
	}
	return out
}

func sectionChoices(ctx context.Context, o *Options, name string) []choice {
	i := slices.IndexFunc(o.Sections, func(s station.Section) bool { return s.Name == name })
	if i < 0 {
		return nil
	}
	devs, err := o.Sections[i].List(ctx)
	if err != nil {
		fmt.Fprintf(o.Out, "  (%s: %v)\n", o.Sections[i].Title, err)
	}
	out := make([]choice, 0, len(devs))
	for _, d := range devs {
		out = append(out, choice{name: d.Name, label: d.Name + describe(d)})
	}
	return out
}

// describe is the facts `acbridge devices` shows, on one line.
func describe(d station.Device) string {
	var b strings.Builder
	if desc, ok := d.Attrs["description"].(string); ok && desc != "" && desc != d.Name {
		fmt.Fprintf(&b, "  %s", desc)
	}
	for _, k := range slices.Sorted(maps.Keys(d.Attrs)) {
		if v, ok := d.Attrs[k].(bool); ok && v && k != "simulated" && k != "test" && k != "capture" && k != "contactless" {
			fmt.Fprintf(&b, "  %s", k)
		}
	}
	if d.Attrs["simulated"] == true {
		b.WriteString("  (simulated, not hardware)")
	}
	return b.String()
}

// choose lists the choices and takes the answer: a number, a name as
// listed or "none" (Enter: the first, or none when nothing is detected). An
// interactive technician gets three tries.
func (a *asker) choose(title, answerKey string, cs []choice) (*choice, error) {
	fmt.Fprintf(a.o.Out, "%ss found:\n", capitalize(title))
	if len(cs) == 0 {
		fmt.Fprintln(a.o.Out, "  none")
	}
	for i, c := range cs {
		fmt.Fprintf(a.o.Out, "  %d. %s\n", i+1, c.label)
	}
	def := "none"
	if len(cs) > 0 {
		def = "1"
	}
	for try := 0; ; try++ {
		var ans string
		if a.o.Answers != nil {
			ans = answerField(a.o.Answers, answerKey)
			fmt.Fprintf(a.o.Out, "Which %s? %s (from the answers)\n", title, orNone(ans))
		} else {
			var err error
			ans, err = a.line(fmt.Sprintf("Which %s? [number, name or none; Enter: %s] ", title, def))
			if err != nil {
				return nil, err
			}
		}
		if ans == "" {
			ans = def
			if a.o.Answers != nil {
				ans = "none"
			}
		}
		c, err := pick(cs, ans, title)
		if err == nil || a.o.Answers != nil || try == 2 {
			if err != nil && a.o.Answers != nil {
				err = fmt.Errorf("answers: %s: %w", answerKey, err)
			}
			return c, err
		}
		fmt.Fprintf(a.o.Out, "  %v\n", err)
	}
}

func pick(cs []choice, ans, title string) (*choice, error) {
	if strings.EqualFold(ans, "none") {
		return nil, nil
	}
	if n, err := strconv.Atoi(ans); err == nil {
		if n >= 1 && n <= len(cs) {
			return &cs[n-1], nil
		}
		return nil, fmt.Errorf("there is no %s number %d (1 to %d, or none)", title, n, len(cs))
	}
	for i := range cs {
		if cs[i].name == ans {
			return &cs[i], nil
		}
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = strconv.Quote(c.name)
	}
	here := "none"
	if len(names) > 0 {
		here = strings.Join(names, ", ")
	}
	return nil, fmt.Errorf("no %s named %q here; %ss here: %s (acbridge devices lists them)", title, clip(ans), title, here)
}

// chooseChip asks which GPIO chip's lines to watch for buttons.
func (a *asker) chooseChip(o *Options) (string, error) {
	chips, _ := o.Chips.Chips()
	var cs []choice
	// "header" names the 40-pin header's chip on every Raspberry Pi
	// model and kernel, so it is offered first where it resolves.
	if dev, err := gpio.ResolveChip(gpio.Header, o.Chips); err == nil {
		cs = append(cs, choice{name: gpio.Header, label: "header  (the 40-pin header: " + dev + ")"})
	}
	for _, c := range chips {
		label := c.Name
		if c.Label != "" {
			label += fmt.Sprintf("  %s, %d lines", c.Label, c.Lines)
		}
		cs = append(cs, choice{name: c.Name, label: label})
	}
	if len(cs) == 0 && (o.Answers == nil || o.Answers.GPIOChip == "" || o.Answers.GPIOChip == "none") {
		fmt.Fprintln(o.Out, "GPIO chips found:\n  none")
		return "", nil
	}
	c, err := a.choose("GPIO chip", "gpio_chip", cs)
	if err != nil || c == nil {
		return "", err
	}
	return c.name, nil
}

func answerField(an *Answers, key string) string {
	switch key {
	case "reader":
		return an.Reader
	case "camera":
		return an.Camera
	case "microphone":
		return an.Microphone
	case "speaker":
		return an.Speaker
	case "gpio_chip":
		return an.GPIOChip
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
