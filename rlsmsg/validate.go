package rlsmsg

import "unicode/utf8"

// shape is a message the model does not decode but proto.Unmarshal does,
// and so may refuse: a response's dynamic_metadata (a
// google.protobuf.Struct) and quota. validate refuses what proto.Unmarshal
// refuses in it.
type shape uint8

const (
	shapeStruct      shape = iota // google.protobuf.Struct
	shapeStructEntry              // an entry of Struct.fields, a map<string, Value>
	shapeValue                    // google.protobuf.Value
	shapeList                     // google.protobuf.ListValue
	shapeQuota                    // RateLimitResponse.Quota
	shapeTimestamp                // google.protobuf.Timestamp
)

// shapeField is a field of a shape that proto.Unmarshal checks: a string
// (UTF-8) or a message of shape msg; rep when it is repeated (its path has
// an index), isMap when it is a map (protobuf-go counts a map entry's
// depth whatever its wire type). Other fields are only read.
type shapeField struct {
	num   int
	name  string
	str   bool
	msg   shape
	rep   bool
	isMap bool
}

var shapes = [...][]shapeField{
	shapeStruct:      {{num: 1, name: "fields", msg: shapeStructEntry, rep: true, isMap: true}},
	shapeStructEntry: {{num: 1, name: "key", str: true}, {num: 2, name: "value", msg: shapeValue}},
	shapeValue: {
		{num: 3, name: "string_value", str: true},
		{num: 5, name: "struct_value", msg: shapeStruct},
		{num: 6, name: "list_value", msg: shapeList},
	},
	shapeList:      {{num: 1, name: "values", msg: shapeValue, rep: true}},
	shapeQuota:     {{num: 2, name: "valid_until", msg: shapeTimestamp}, {num: 3, name: "id", str: true}},
	shapeTimestamp: nil,
}

// validate checks b, a message of shape s at depth depth (the decoded
// message's own depth being 0).
func validate(b []byte, s shape, depth int) error {
	if depth >= MaxDepth {
		return errDepth
	}
	n := 0 // occurrences of the shape's repeated field so far
	return EachField(b, func(f Field) error {
		sf := s.field(f.Num)
		if sf == nil {
			return nil
		}
		i := -1
		if sf.rep && f.Type == WireBytes {
			i, n = n, n+1
		}
		switch {
		case sf.isMap && depth+1 >= MaxDepth:
			// protobuf-go counts a map entry's depth before it looks at
			// the wire type.
			return inField(errDepth, sf.name, i)
		case f.Type != WireBytes:
		case sf.str:
			if !utf8.Valid(f.Bytes) {
				return inField(errUTF8, sf.name, i)
			}
		default:
			if err := validate(f.Bytes, sf.msg, depth+1); err != nil {
				return inField(err, sf.name, i)
			}
		}
		return nil
	})
}

// field returns the field num of s that proto.Unmarshal checks, or nil.
func (s shape) field(num int) *shapeField {
	fields := shapes[s]
	for i := range fields {
		if fields[i].num == num {
			return &fields[i]
		}
	}
	return nil
}
