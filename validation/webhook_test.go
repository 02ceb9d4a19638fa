package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidateWebhookURLAndService_KubesMessages(t *testing.T) {
	p := NewPath("clientConfig")
	path := func(s string) *string { return &s }
	tests := []struct {
		name string
		errs ErrorList
		want []string
	}{
		{"an https url with a path is valid", ValidateWebhookURL("https://hooks.example.com:8443/admit", p.Child("url")), nil},
		{"a url is https with a host", ValidateWebhookURL("http:///x#f", p.Child("url")), []string{
			`clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
			`clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]`,
			`clientConfig.url: Invalid value: "f": fragments are not permitted in the URL`}},
		{"a service at the root path is valid", ValidateWebhookService("hook", "system", path("/"), 443, p.Child("service")), nil},
		{"a service has a name, a namespace, a port and DNS path segments", ValidateWebhookService("", "", path("x//Y/"), 0, p.Child("service")), []string{
			"clientConfig.service.name: Required value",
			"clientConfig.service.namespace: Required value",
			"clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
			`clientConfig.service.path: Invalid value: "x//Y/": must start with a '/'`,
			`clientConfig.service.path: Invalid value: "x//Y/": segment[0] may not be empty`,
			`clientConfig.service.path: Invalid value: "x//Y/": segment[1] may not be empty`,
			`clientConfig.service.path: Invalid value: "x//Y/": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range tt.errs {
				got = append(got, e.Error())
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}
