package shellsession

import (
	"testing"
	"time"
)

func TestSettle(t *testing.T) {
	now := time.Unix(1000, 0)
	deadline := now.Add(time.Second)
	atPrompt := view{fresh: true, marks: 1, want: 1, atMark: MarkPrompt, readsKeys: true}
	for _, tc := range []struct {
		name     string
		v        view
		at       time.Time
		done     bool
		wakeWant time.Duration // from now, when not done
	}{
		{"the shell exited", view{exited: true}, now, true, 0},
		{"yieldMs is over", view{}, deadline, true, 0},
		{"nothing new: wait to the deadline", view{want: 1}, now, false, time.Second},
		{"back at the prompt after the line", atPrompt, now, true, 0},
		{"the prompt, but output followed it", func() view { v := atPrompt; v.atMark = 0; return v }(), now, false, keySettle},
		{"a prompt for the first of two lines", func() view { v := atPrompt; v.want = 2; return v }(), now, false, keySettle},
		{"a prompt, but a command already runs (type-ahead)", func() view { v := atPrompt; v.readsKeys = false; return v }(), now, false, modePoll},
		{"a REPL answered and went quiet", view{fresh: true, want: 1, readsKeys: true, quiet: keySettle}, now, true, 0},
		{"a REPL still printing", view{fresh: true, want: 1, readsKeys: true, quiet: 10 * time.Millisecond}, now, false, keySettle - 10*time.Millisecond},
		{"the shell printed ^C: wait for its prompt", view{fresh: true, want: 1, readsKeys: true, shell: true, quiet: keySettle}, now, false, shellSettle - keySettle},
		{"the shell went quiet without a marker (its PS1 replaced)", view{fresh: true, want: 1, readsKeys: true, shell: true, quiet: shellSettle}, now, true, 0},
		{"a command runs and printed: wait for it", view{fresh: true, want: 1, quiet: time.Minute}, now, false, modePoll},
		{"a raw-mode program with no output yet", view{want: 1, readsKeys: true, quiet: time.Minute}, now, false, time.Second},
		{"wake never after the deadline", view{fresh: true, want: 1}, deadline.Add(-time.Millisecond), false, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done, wake := settle(tc.v, tc.at, deadline)
			if done != tc.done {
				t.Fatalf("done = %v, want %v", done, tc.done)
			}
			if !done && wake.Sub(now) != tc.wakeWant {
				t.Errorf("wake in %v, want %v", wake.Sub(now), tc.wakeWant)
			}
		})
	}
}

func TestLinesIn(t *testing.T) {
	for chars, want := range map[string]int{"": 1, "ls": 1, "ls\n": 1, "a\nb\n": 2, "a\r\n": 2, "\x03": 1, "x\x03\x04": 2} {
		if got := linesIn(chars); got != want {
			t.Errorf("linesIn(%q) = %d, want %d", chars, got, want)
		}
	}
}

func TestKeyClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	type step struct {
		at        time.Time
		v         view
		wantQuiet time.Duration
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"a REPL already reading keys: output's own quiet counts", []step{
			{ms(0), view{readsKeys: true, fg: 7}, 0},
			{ms(100), view{readsKeys: true, fg: 7, quiet: 40 * time.Millisecond}, 40 * time.Millisecond},
		}},
		{"bash takes the terminal back between the commands of a list (regression: the read ended before `echo two`)", []step{
			{ms(0), view{fg: 8}, 0},
			{ms(300), view{readsKeys: true, fg: 7, quiet: 300 * time.Millisecond}, 0},
			{ms(310), view{readsKeys: true, fg: 7, quiet: 310 * time.Millisecond}, 10 * time.Millisecond},
		}},
		{"a new foreground restarts the clock", []step{
			{ms(0), view{readsKeys: true, fg: 7}, 0},
			{ms(500), view{readsKeys: true, fg: 9, quiet: time.Second}, 0},
		}},
		{"line mode stops it", []step{
			{ms(0), view{readsKeys: true, fg: 7}, 0},
			{ms(100), view{fg: 7, quiet: time.Second}, time.Second},
			{ms(200), view{readsKeys: true, fg: 7, quiet: time.Second}, 0},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c keyClock
			for i, st := range tc.steps {
				if got := c.observe(st.v, st.at).quiet; got != st.wantQuiet {
					t.Errorf("step %d: quiet %v, want %v", i, got, st.wantQuiet)
				}
			}
		})
	}
}
