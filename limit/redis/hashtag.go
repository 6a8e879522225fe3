package redis

import (
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// hashTag returns the part of key Redis Cluster hashes: the text between
// the first '{' and the next '}' when it is not empty, else the whole key.
func hashTag(key string) string {
	open := strings.IndexByte(key, '{')
	if open < 0 {
		return key
	}
	n := strings.IndexByte(key[open+1:], '}')
	if n <= 0 {
		return key
	}
	return key[open+1 : open+1+n]
}

// sameHashTag reports an error unless every update's key has the hash tag
// of the first.
func sameHashTag(updates []counter.Update) error {
	tag := hashTag(updates[0].Key)
	for i := 1; i < len(updates); i++ {
		if t := hashTag(updates[i].Key); t != tag {
			return fmt.Errorf("limit/redis: keys %q and %q of one update have different hash tags (%q, %q); on a sharded Redis all keys of one Update must share one", updates[0].Key, updates[i].Key, tag, t)
		}
	}
	return nil
}
