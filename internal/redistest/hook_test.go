package redistest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"
)

// TestCommands: the hook counts a command alone and a pipeline as one round trip each,
// names every command, keeps their text only when asked, counts scripts across Takes, and
// leaves out the handshake of the connection.
func TestCommands(t *testing.T) {
	srv := Start(t)
	open := func(url string) (goredis.UniversalClient, error) {
		opt, err := goredis.ParseURL(url)
		if err != nil {
			return nil, err
		}
		return goredis.NewClient(opt), nil
	}
	c := Client(t, srv.URL(), open)
	hook := &Commands{KeepText: true}
	c.AddHook(hook)
	ctx := context.Background()
	if err := c.Set(ctx, "k", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		p.IncrBy(ctx, "k", 2)
		p.Eval(ctx, "return 1", nil)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got := hook.Take()
	want := Sent{
		Names:      map[string]int{"set": 1, "incrby": 1, "eval": 1},
		Calls:      map[string]int{"set": 1, "pipeline": 1},
		Text:       []string{"set k 1", "incrby k 2", "eval return 1 0"},
		RoundTrips: 2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Take() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Sent{Names: map[string]int{}, Calls: map[string]int{}}, hook.Take()); diff != "" {
		t.Errorf("a second Take() (-want +got):\n%s", diff)
	}
	c.Eval(ctx, "return 2", nil)
	if n := hook.Scripts(); n != 2 {
		t.Errorf("Scripts() = %d, want 2", n)
	}
	quiet := &Commands{}
	c.AddHook(quiet)
	c.Get(ctx, "k")
	if got := quiet.Take(); got.Text != nil || got.Names["get"] != 1 {
		t.Errorf("without KeepText, Take() = %+v, want the name without text", got)
	}
}
