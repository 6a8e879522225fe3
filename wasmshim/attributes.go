package wasmshim

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
)

// The attribute groups of Kuadrant's well-known attributes, and the type each has when
// predicates are checked. auth is a map: its fields come from the AuthPolicy's response.
var attributeFields = map[string]map[string]*types.Type{
	"request": {
		"id": types.StringType, "time": types.TimestampType, "protocol": types.StringType,
		"scheme": types.StringType, "host": types.StringType, "method": types.StringType,
		"path": types.StringType, "url_path": types.StringType, "query": types.StringType,
		"headers": types.NewMapType(types.StringType, types.StringType), "referer": types.StringType,
		"useragent": types.StringType, "size": types.IntType, "total_size": types.IntType,
	},
	"source": {
		"address": types.StringType, "port": types.IntType, "remote_address": types.StringType,
	},
	"destination": {
		"address": types.StringType, "port": types.IntType,
	},
	"connection": {
		"id": types.UintType, "mtls": types.BoolType, "requested_server_name": types.StringType,
		"tls_version": types.StringType, "subject_local_certificate": types.StringType,
		"subject_peer_certificate": types.StringType, "dns_san_local_certificate": types.StringType,
		"dns_san_peer_certificate": types.StringType, "uri_san_local_certificate": types.StringType,
		"uri_san_peer_certificate": types.StringType, "sha256_peer_certificate_digest": types.StringType,
		"transport_failure_reason": types.StringType, "termination_details": types.StringType,
	},
}

// attributeTypeName is the CEL type name of an attribute group when checking.
func attributeTypeName(group string) string { return "kuadrant.attributes." + group }

// attributeProvider adds the attribute groups, as struct types, to cel-go's types.
type attributeProvider struct{ types.Provider }

// FindStructType returns the type of an attribute group.
func (p attributeProvider) FindStructType(name string) (*types.Type, bool) {
	if g, ok := strings.CutPrefix(name, "kuadrant.attributes."); ok && attributeFields[g] != nil {
		return types.NewTypeTypeWithParam(types.NewObjectType(name)), true
	}
	return p.Provider.FindStructType(name)
}

// FindStructFieldNames returns the attributes of a group.
func (p attributeProvider) FindStructFieldNames(name string) ([]string, bool) {
	if g, ok := strings.CutPrefix(name, "kuadrant.attributes."); ok && attributeFields[g] != nil {
		names := make([]string, 0, len(attributeFields[g]))
		for n := range attributeFields[g] {
			names = append(names, n)
		}
		slices.Sort(names)
		return names, true
	}
	return p.Provider.FindStructFieldNames(name)
}

// FindStructFieldType returns the type of one attribute.
func (p attributeProvider) FindStructFieldType(name, fieldName string) (*types.FieldType, bool) {
	if g, ok := strings.CutPrefix(name, "kuadrant.attributes."); ok && attributeFields[g] != nil {
		t, ok := attributeFields[g][fieldName]
		if !ok {
			return nil, false
		}
		return &types.FieldType{Type: t, IsSet: func(any) bool { return true }, GetFrom: func(any) (any, error) {
			return nil, fmt.Errorf("attribute %s.%s is only type-checked here", g, fieldName)
		}}, true
	}
	return p.Provider.FindStructFieldType(name, fieldName)
}

// commonOptions are the functions predicates may call, checked and evaluated alike.
func commonOptions() []cel.EnvOption {
	return []cel.EnvOption{
		ext.Strings(),
		cel.Function("queryMap", cel.Overload("queryMap_string", []*types.Type{types.StringType},
			types.NewMapType(types.StringType, types.StringType), cel.UnaryBinding(queryMap))),
		cel.Function("requestBodyJSON", cel.Overload("requestBodyJSON_string", []*types.Type{types.StringType}, types.DynType)),
		cel.Function("responseBodyJSON", cel.Overload("responseBodyJSON_string", []*types.Type{types.StringType}, types.DynType)),
	}
}

// checkEnv is the environment predicates are type-checked in.
var checkEnv = sync.OnceValues(func() (*cel.Env, error) {
	base, err := cel.NewEnv()
	if err != nil {
		return nil, err
	}
	opts := append(commonOptions(), cel.CustomTypeProvider(attributeProvider{base.CELTypeProvider()}),
		cel.Variable("auth", types.NewMapType(types.StringType, types.DynType)))
	for _, g := range attributeGroups {
		opts = append(opts, cel.Variable(g, types.NewObjectType(attributeTypeName(g))))
	}
	return cel.NewEnv(opts...)
})

// attributeGroups are the attribute groups other than auth, in a fixed order.
var attributeGroups = []string{"request", "source", "destination", "connection"}

// CheckError is why a predicate or expression does not compile.
type CheckError struct {
	// Expression is the CEL source.
	Expression string
	// Msg says what is wrong, with the column.
	Msg string
}

// Error returns the message.
func (e *CheckError) Error() string { return e.Msg }

// Checked is what type-checking a predicate found.
type Checked struct {
	// UsesAuth is true when the predicate reads auth.*, which only an AuthPolicy on the
	// same path provides.
	UsesAuth bool
}

// CheckPredicate type-checks a predicate against Kuadrant's well-known attributes: it must
// parse, name only known attributes and functions, and be a bool.
func CheckPredicate(src string) (Checked, error) {
	env, err := checkEnv()
	if err != nil {
		return Checked{}, err
	}
	ast, iss := env.Compile(src)
	if iss.Err() != nil {
		return Checked{}, &CheckError{Expression: src, Msg: issuesMessage(iss)}
	}
	if !ast.OutputType().IsExactType(types.BoolType) && !ast.OutputType().IsExactType(types.DynType) {
		return Checked{}, &CheckError{Expression: src, Msg: fmt.Sprintf("must evaluate to a bool, not %s", ast.OutputType())}
	}
	var c Checked
	for _, r := range ast.NativeRep().ReferenceMap() {
		if r.Name == "auth" {
			c.UsesAuth = true
		}
	}
	return c, nil
}

// CheckExpression type-checks a data expression (a counter) as CheckPredicate does a
// predicate, whatever its type: it must parse and name only known attributes and functions,
// so that request.hedaers['x-user'] or request.headers.x-user (x minus an undeclared user)
// is an error. Kuadrant does not check data expressions: such a counter is accepted there
// and the limit never applies, since its value is never found.
func CheckExpression(src string) error {
	env, err := checkEnv()
	if err != nil {
		return err
	}
	if _, iss := env.Compile(src); iss.Err() != nil {
		return &CheckError{Expression: src, Msg: issuesMessage(iss)}
	}
	return nil
}

func issuesMessage(iss *cel.Issues) string {
	msgs := make([]string, 0, len(iss.Errors()))
	for _, e := range iss.Errors() {
		msgs = append(msgs, fmt.Sprintf("%s (column %d)", e.Message, e.Location.Column()+1))
	}
	return strings.Join(msgs, "; ")
}

// queryMap parses a query string into a map of the first value of each parameter.
func queryMap(v ref.Val) ref.Val {
	s, ok := v.Value().(string)
	if !ok {
		return types.NewErr("queryMap: want a string")
	}
	out := map[string]string{}
	for part := range strings.SplitSeq(strings.TrimPrefix(s, "?"), "&") {
		if part == "" {
			continue
		}
		k, val, _ := strings.Cut(part, "=")
		k, val = unescapeQuery(k), unescapeQuery(val)
		if _, seen := out[k]; !seen {
			out[k] = val
		}
	}
	return types.DefaultTypeAdapter.NativeToValue(out)
}
