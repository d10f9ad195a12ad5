package kubeexec

import authv1 "k8s.io/api/authentication/v1"

func authv1TokenRequest() authv1.TokenRequest {
	d := int64(3600)
	return authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: &d}}
}
