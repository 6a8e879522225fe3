package redis

import (
	"context"
	"strconv"

	goredis "github.com/redis/go-redis/v9"
)

// The scripts' SHA-1 digests, as EVALSHA names them.
var (
	updateSHA = updateScript.Hash()
	fixedSHA  = fixedScript.Hash()
)

// evalArgs is the reused argument list of one script call as go-redis
// writes it: EVALSHA and the digest (or EVAL and the source), the number
// of keys, the keys, then ARGV. Every element but the command's name is a
// *string (which go-redis writes as the string it points to) into memory
// that stays unchanged until the call is answered: the script's text, the
// call's keys and arguments, numKeys. Boxing a pointer allocates nothing,
// where boxing a string or a []byte copies its header to the heap: filling
// the list allocates nothing once it has grown.
type evalArgs struct {
	args    []any
	numKeys string
}

// set fills the list for a call of s on keys with argv, by digest when sha
// is set, else by source, and returns it. keys and argv must stay
// unchanged, and e unused, until the command is answered.
func (e *evalArgs) set(s *goredis.Script, sha bool, keys, argv []string) []any {
	var name any = "evalsha" // a constant boxes without allocating
	text := &updateSHA
	switch {
	case s == fixedScript && sha:
		text = &fixedSHA
	case s == fixedScript:
		name, text = "eval", &fixedLua
	case !sha:
		name, text = "eval", &updateLua
	}
	e.numKeys = strconv.Itoa(len(keys)) // below 100, a constant: no allocation
	a := append(e.args[:0], name, text, &e.numKeys)
	for i := range keys {
		a = append(a, &keys[i])
	}
	for i := range argv {
		a = append(a, &argv[i])
	}
	e.args = a
	return a
}

// clear drops the list's references to the keys and arguments.
func (e *evalArgs) clear() {
	clear(e.args)
	e.args = e.args[:0]
}

// evalCmd returns the command of the arguments a (see evalArgs.set), its
// reply read as a string (the scripts answer one bulk string), routed by
// its first key on a Cluster.
func evalCmd(ctx context.Context, a []any) *goredis.StringCmd {
	cmd := goredis.NewStringCmd(ctx, a...)
	if len(a) > 3 {
		cmd.SetFirstKeyPos(3)
	}
	return cmd
}

// isNoScript reports whether err is Redis's answer to EVALSHA of a script
// it has not cached (after a restart or SCRIPT FLUSH).
func isNoScript(err error) bool {
	return err != nil && goredis.HasErrorPrefix(err, "NOSCRIPT")
}

// runScript runs one script call on client at once, by digest, then by
// source when the server has not cached the script, and returns its reply.
// a is the call's reused argument list.
// A Cluster's TRYAGAIN is answered by sending it again (see
// tryAgainWait).
func runScript(ctx context.Context, client goredis.UniversalClient, a *evalArgs, s *goredis.Script, keys, argv []string) (string, error) {
	cmd := evalCmd(ctx, a.set(s, true, keys, argv))
	_ = client.Process(ctx, cmd) // the command holds its error
	if isNoScript(cmd.Err()) {
		cmd = evalCmd(ctx, a.set(s, false, keys, argv))
		_ = client.Process(ctx, cmd)
	}
	for n := 0; isTryAgain(cmd.Err()); n++ {
		d, ok := tryAgainWait(ctx, n)
		if !ok || !sleepCtx(ctx, d) {
			break
		}
		cmd = evalCmd(ctx, a.set(s, false, keys, argv))
		_ = client.Process(ctx, cmd)
	}
	a.clear()
	return cmd.Result()
}
