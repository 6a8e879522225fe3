package envoygateway

import (
	"encoding/json"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// protoValue returns a message as the JSON value of its protojson form with proto field
// names, which encoding/json then writes deterministically.
func protoValue(m proto.Message) (any, error) {
	js, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	var v any
	err = json.Unmarshal(js, &v)
	return v, err
}
