package conformance

import (
	"testing"
)

func TestPublicFixturesPass(t *testing.T) {
	f, err := Parse(PublicFixtures)
	if err != nil {
		t.Fatal(err)
	}
	r := Run(f, nil)
	for _, c := range r.Cases {
		if !c.Pass {
			t.Errorf("%s/%s: expected %+v, got %+v %s", c.Section, c.Name, c.Expected, c.Got, c.Detail)
		}
	}
	if r.Passed != 6+10+1 || !r.OK() {
		t.Errorf("passed %d failed %d; want 17 passed", r.Passed, r.Failed)
	}
}
