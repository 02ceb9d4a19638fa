package validation

import (
	"fmt"
	"net/url"
	"strings"
)

// ValidateWebhookURL is k8s.io/apiserver's ValidateWebhookURL with https forced, as kube
// checks the url of an admission webhook and of a CRD's conversion webhook: parseable,
// https, a host, no user information, fragment or query.
func ValidateWebhookURL(raw string, p *Path) ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return ErrorList{Required(p, "url must be a valid URL: "+err.Error()+form)}
	}
	var errs ErrorList
	if u.Scheme != "https" {
		errs = append(errs, Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		errs = append(errs, Invalid(p, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// ValidateWebhookService is k8s.io/apiserver's ValidateWebhookService, kube's check of a
// webhook's service reference: a name, a namespace, a valid port (the caller passes the
// defaulted one) and a path whose segments are DNS subdomains.
func ValidateWebhookService(name, namespace string, path *string, port int32, p *Path) ErrorList {
	var errs ErrorList
	if name == "" {
		errs = append(errs, Required(p.Child("name"), ""))
	}
	if namespace == "" {
		errs = append(errs, Required(p.Child("namespace"), ""))
	}
	if port < 1 || port > 65535 {
		errs = append(errs, Invalid(p.Child("port"), port, "port is not valid: must be between 1 and 65535, inclusive"))
	}
	if path == nil || *path == "/" || *path == "" {
		return errs
	}
	urlPath, pp := *path, p.Child("path")
	if urlPath == "//" {
		return append(errs, Invalid(pp, urlPath, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(urlPath, "/") {
		errs = append(errs, Invalid(pp, urlPath, "must start with a '/'"))
	}
	// kube drops the first character, slash or not, and one trailing slash.
	for i, step := range strings.Split(strings.TrimSuffix(urlPath[1:], "/"), "/") {
		if step == "" {
			errs = append(errs, Invalid(pp, urlPath, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range IsDNS1123Subdomain(step) {
			errs = append(errs, Invalid(pp, urlPath, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}
