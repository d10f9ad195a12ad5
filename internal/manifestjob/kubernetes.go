package manifestjob

import (
	"encoding/json"
	"slices"

	"github.com/almanac-sh/almanac/internal/store"
)

// kubernetesParam maps a job's kubernetes hash onto the spec: namespace,
// context and job_template, the template as YAML text or as a hash (kept
// as its JSON). job.Validate checks the values.
func kubernetesParam(p map[string]any, spec *store.JobSpec, fail func(attr, format string, a ...any)) {
	h, has := p["kubernetes"].(map[string]any)
	if !has {
		return
	}
	k := &store.KubernetesSpec{}
	for _, key := range slices.Sorted(mapKeys(h)) {
		v := h[key]
		switch key {
		case "namespace", "context":
			s, ok := v.(string)
			if !ok {
				fail("kubernetes", "%s must be a String, not %s", key, kindOf(v))
				continue
			}
			if key == "namespace" {
				k.Namespace = s
			} else {
				k.Context = s
			}
		case "job_template":
			switch t := v.(type) {
			case string:
				k.JobTemplate = t
			case map[string]any:
				b, err := json.Marshal(t)
				if err != nil {
					fail("kubernetes", "job_template: %v", err)
					continue
				}
				k.JobTemplate = string(b)
			default:
				fail("kubernetes", "job_template must be YAML text (a String) or a Hash, not %s", kindOf(v))
			}
		default:
			fail("kubernetes", "unknown key %q: expected namespace, job_template or context", key)
		}
	}
	spec.Kubernetes = k
}
