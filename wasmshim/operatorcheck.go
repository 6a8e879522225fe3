package wasmshim

import (
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
)

// operatorEnv is the environment kuadrant-operator v1.5.2 checks a rate-limit action's
// predicates in: the attribute groups request, source, destination and connection, and
// the rate-limit binding ratelimit, are all of type dyn, so that any field of them
// checks; auth is declared only when an AuthPolicy is on the path; the functions are
// cel-go's string extensions, requestBodyJSON and responseBodyJSON (queryMap is not
// declared: the operator writes it only into route conditions, which it does not check).
func operatorEnv(withAuth bool) (*cel.Env, error) {
	opts := []cel.EnvOption{
		ext.Strings(),
		cel.Function("requestBodyJSON", cel.Overload("requestBodyJSON_string", []*types.Type{types.StringType}, types.DynType)),
		cel.Function("responseBodyJSON", cel.Overload("responseBodyJSON_string", []*types.Type{types.StringType}, types.DynType)),
	}
	for _, g := range attributeGroups {
		opts = append(opts, cel.Variable(g, types.DynType))
	}
	if withAuth {
		opts = append(opts, cel.Variable("auth", types.DynType))
	}
	opts = append(opts, cel.Variable("ratelimit", types.DynType))
	return cel.NewEnv(opts...)
}

var (
	operatorEnvNoAuth   = sync.OnceValues(func() (*cel.Env, error) { return operatorEnv(false) })
	operatorEnvWithAuth = sync.OnceValues(func() (*cel.Env, error) { return operatorEnv(true) })
)

// OperatorCheck type-checks a predicate as kuadrant-operator v1.5.2 does before it writes
// a rate-limit action, withAuth telling whether an AuthPolicy is on the path. Only
// undeclared names (auth without an AuthPolicy, a misspelt group such as req), unknown
// functions and syntax fail; a misspelt attribute (source.id) and a predicate that is not
// a bool pass, as they do in the operator (CheckPredicate catches those). The error is
// cel-go's, as the operator quotes it in the InvalidCelExpression condition.
func OperatorCheck(src string, withAuth bool) error {
	envOf := operatorEnvNoAuth
	if withAuth {
		envOf = operatorEnvWithAuth
	}
	env, err := envOf()
	if err != nil {
		return err
	}
	ast, iss := env.Parse(src)
	if iss.Err() != nil {
		return iss.Err()
	}
	if _, iss = env.Check(ast); iss.Err() != nil {
		return iss.Err()
	}
	return nil
}
