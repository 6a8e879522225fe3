package redis

import (
	"fmt"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// sameHashTag reports an error unless every update's key has the hash tag
// of the first.
func sameHashTag(updates []counter.Update) error {
	tag := script.HashTag(updates[0].Key)
	for i := 1; i < len(updates); i++ {
		if t := script.HashTag(updates[i].Key); t != tag {
			return fmt.Errorf("limit/redis: keys %q and %q of one update have different hash tags (%q, %q); on a sharded Redis all keys of one Update must share one", updates[0].Key, updates[i].Key, tag, t)
		}
	}
	return nil
}
