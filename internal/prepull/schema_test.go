package prepull_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// validateManifest checks a manifest as `kubectl apply --validate=strict`
// would: against the Kubernetes OpenAPI schema that kyaml embeds (types,
// required fields, enums), with unknown fields rejected as kubeconform's
// strict mode does, by closing every object definition that lists its
// properties.
func validateManifest(doc []byte) error {
	root := openapi.Schema()
	if root == nil {
		return fmt.Errorf("kyaml has no OpenAPI schema")
	}
	strict := *root
	strict.Definitions = spec.Definitions{}
	for name, d := range root.Definitions {
		if len(d.Properties) > 0 && d.AdditionalProperties == nil {
			d.AdditionalProperties = &spec.SchemaOrBool{Allows: false}
		}
		strict.Definitions[name] = d
	}
	var obj map[string]any
	if err := yaml.Unmarshal(doc, &obj); err != nil {
		return err
	}
	kind, _ := obj["kind"].(string)
	apiVersion, _ := obj["apiVersion"].(string)
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "core", apiVersion
	}
	def, ok := strict.Definitions[fmt.Sprintf("io.k8s.api.%s.%s.%s", group, version, kind)]
	if !ok {
		return fmt.Errorf("no schema for %s %s", apiVersion, kind)
	}
	// JSON numbers, as the API server decodes them: integers stay int64.
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var data any
	if err := dec.Decode(&data); err != nil {
		return err
	}
	data = numbers(data)
	// The validator does not follow $ref: the definition is inlined.
	full, err := inline(def, strict.Definitions, 0)
	if err != nil {
		return err
	}
	res := validate.NewSchemaValidator(&full, nil, "", strfmt.Default).Validate(data)
	if res.IsValid() {
		return nil
	}
	var msgs []string
	for _, e := range res.Errors {
		msgs = append(msgs, e.Error())
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

// inline replaces every $ref in s with the definition it names.
func inline(s spec.Schema, defs spec.Definitions, depth int) (spec.Schema, error) {
	if depth > 40 {
		return s, fmt.Errorf("schema nests deeper than 40: a cycle?")
	}
	if ref := s.Ref.String(); ref != "" {
		d, ok := defs[strings.TrimPrefix(ref, "#/definitions/")]
		if !ok {
			return s, fmt.Errorf("no definition %s", ref)
		}
		return inline(d, defs, depth+1)
	}
	if s.Format == "int-or-string" {
		// The API server takes either (maxUnavailable: 1 or "20%"); the
		// swagger document says string, as kubeconform's schemas do not.
		return spec.Schema{SchemaProps: spec.SchemaProps{AnyOf: []spec.Schema{*spec.StringProperty(), *spec.Int64Property()}}}, nil
	}
	if len(s.Properties) > 0 {
		props := map[string]spec.Schema{}
		for k, p := range s.Properties {
			var err error
			if props[k], err = inline(p, defs, depth+1); err != nil {
				return s, err
			}
		}
		s.Properties = props
	}
	if s.Items != nil && s.Items.Schema != nil {
		it, err := inline(*s.Items.Schema, defs, depth+1)
		if err != nil {
			return s, err
		}
		s.Items = &spec.SchemaOrArray{Schema: &it}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		ap, err := inline(*s.AdditionalProperties.Schema, defs, depth+1)
		if err != nil {
			return s, err
		}
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: &ap}
	}
	return s, nil
}

// numbers turns json.Number into int64 or float64.
func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}
