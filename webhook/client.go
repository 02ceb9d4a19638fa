package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

// DefaultTimeout bounds a call when Options.Timeout is zero: the 30 seconds
// kube-apiserver gives every webhook client (a conversion webhook has no timeout of its
// own; an admission webhook's timeoutSeconds is shorter and comes as the call's context).
const DefaultTimeout = 30 * time.Second

// DefaultMaxResponseBytes bounds a webhook's answer when Options.MaxResponseBytes is
// zero. kube-apiserver reads an answer of any size; apikit reads as much as it accepts
// in a request body (3 MiB) and a margin for the review around the objects, so that a
// webhook cannot make the server hold more than a client could send it.
const DefaultMaxResponseBytes = 6 << 20

// ClientConfig says where a webhook is and how its serving certificate is verified:
// the clientConfig of a CRD's conversion webhook or of an admission webhook.
type ClientConfig struct {
	// URL is the webhook's https address; Service is used when it is empty.
	URL string
	// Service names the Service in front of the webhook.
	Service *ServiceReference
	// CABundle holds the PEM certificates the serving certificate must chain to; empty
	// (or only white space), the system's roots.
	CABundle []byte
}

// ServiceReference names the Service of a webhook, as the clientConfig.service of
// kube's webhook configurations does.
type ServiceReference struct {
	Namespace string
	Name      string
	// Path is the URL path the request is sent to, "" for "/".
	Path string
	// Port is the Service's port; 0 means 443.
	Port int32
}

// ServiceResolver returns where the Service namespace/name serves port: the host
// knows how its services are reached (a port-forward, a local listener, the cluster's
// DNS). The request keeps the Service's DNS name as its host, and the serving
// certificate is verified against that name, as kube-apiserver does.
type ServiceResolver func(namespace, name string, port int32) (*url.URL, error)

// ClusterDNS is kube-apiserver's default resolver: https://name.namespace.svc:port,
// for a host that resolves cluster DNS names.
func ClusterDNS(namespace, name string, port int32) (*url.URL, error) {
	if name == "" || namespace == "" || port == 0 {
		return nil, errors.New("cannot resolve an empty service name or namespace or port")
	}
	return &url.URL{Scheme: "https", Host: fmt.Sprintf("%s.%s.svc:%d", name, namespace, port)}, nil
}

// Options adjust a Client; the zero value is kube's defaults without cluster DNS.
type Options struct {
	// Resolver finds a Service's address. Nil, a webhook behind a Service is not
	// reachable: its calls fail as kube-apiserver's fail where cluster DNS does not
	// resolve the Service's name (apikit reaches no cluster DNS unless told to; set
	// ClusterDNS for that).
	Resolver ServiceResolver
	// Timeout bounds each call (DefaultTimeout when zero); a shorter deadline of the
	// call's context wins.
	Timeout time.Duration
	// MaxResponseBytes bounds the body of an answer (DefaultMaxResponseBytes when zero).
	MaxResponseBytes int64
}

// Client calls one webhook. It is safe for concurrent use; Close releases its idle
// connections.
type Client struct {
	name     string
	endpoint *url.URL // the URL requests carry, with kube's ?timeout= parameter
	http     *http.Client
	maxBytes int64
	// unreachable is the error of every call when the Service cannot be resolved.
	unreachable error
}

// New builds the client of the webhook name (how errors name it) from cc. A config that
// names no address, an address that does not parse, or a caBundle without a PEM
// certificate is a *CallError, as kube-apiserver refuses to build such a client.
func New(name string, cc ClientConfig, opts Options) (*Client, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c := &Client{name: name, maxBytes: opts.MaxResponseBytes}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxResponseBytes
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	if len(bytes.TrimSpace(cc.CABundle)) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cc.CABundle) {
			return nil, &CallError{Webhook: name, Err: errors.New("unable to load root certificates: unable to parse bytes as PEM block")}
		}
		tlsConfig.RootCAs = pool
	}
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	dial := dialer.DialContext
	switch {
	case cc.Service != nil:
		svc := *cc.Service
		if svc.Port == 0 {
			svc.Port = 443
		}
		serverName := svc.Name + "." + svc.Namespace + ".svc"
		host := net.JoinHostPort(serverName, strconv.Itoa(int(svc.Port)))
		c.endpoint = &url.URL{Scheme: "https", Host: host, Path: path.Join("/", svc.Path)}
		tlsConfig.ServerName = serverName
		if opts.Resolver == nil {
			c.unreachable = &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: serverName, IsNotFound: true}}
			break
		}
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == host {
				u, err := opts.Resolver(svc.Namespace, svc.Name, svc.Port)
				if err != nil {
					return nil, err
				}
				addr = u.Host
				if u.Port() == "" {
					addr = net.JoinHostPort(u.Hostname(), "443")
				}
			}
			return dialer.DialContext(ctx, network, addr)
		}
	case cc.URL != "":
		u, err := url.Parse(cc.URL)
		if err != nil {
			return nil, &CallError{Webhook: name, Err: fmt.Errorf("Unparsable URL: %v", err)}
		}
		// client-go joins the path ("//validate-x" is /validate-x, as controller-runtime's
		// envtest writes it), and so kube-apiserver sends it.
		c.endpoint = &url.URL{Scheme: u.Scheme, Host: u.Host, Path: path.Join("/", u.Path)}
	default:
		return nil, &CallError{Webhook: name, Err: errors.New("webhook configuration must have either service or URL")}
	}
	if c.endpoint.Path == "" {
		c.endpoint.Path = "/"
	}
	c.endpoint.RawQuery = url.Values{"timeout": {timeout.String()}}.Encode()
	c.http = &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:         dial,
			TLSClientConfig:     tlsConfig,
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: 100,
			IdleConnTimeout:     90 * time.Second,
		},
		// A webhook answers where it is asked; a redirect is not followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, nil
}

// Name is the webhook's name, as errors give it.
func (c *Client) Name() string { return c.name }

// URL is the address requests are sent to: the config's URL, or the Service's DNS
// name and path, with kube's timeout parameter.
func (c *Client) URL() string { return c.endpoint.String() }

// Close releases the client's idle connections; calls after it open new ones.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Call POSTs request as JSON and decodes the 2xx answer into response. Every failure
// is a *CallError: the webhook unreachable, hung past the timeout or ctx, an HTTP
// error status (a *StatusError inside), an empty, oversized (*TooLargeError inside) or
// non-JSON answer.
func (c *Client) Call(ctx context.Context, request, response any) error {
	body, err := json.Marshal(request)
	if err != nil {
		return fmt.Errorf("webhook %q: encoding the request: %w", c.name, err)
	}
	if c.unreachable != nil {
		return c.fail(&url.Error{Op: "Post", URL: c.endpoint.String(), Err: c.unreachable})
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return c.fail(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, */*")
	resp, err := c.http.Do(req)
	if err != nil {
		return c.fail(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err != nil {
		return c.fail(err)
	}
	if int64(len(data)) > c.maxBytes {
		return c.fail(&TooLargeError{Limit: c.maxBytes})
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return c.fail(statusErrorOf(resp, data))
	}
	if len(data) == 0 {
		return c.fail(fmt.Errorf("0-length response with status code: %d and content type: %s", resp.StatusCode, resp.Header.Get("Content-Type")))
	}
	// client-go reads the kind first, with this message for a body that is no JSON.
	var kind struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(data, &kind); err != nil {
		return c.fail(fmt.Errorf("couldn't get version/kind; json parse error: %v", err))
	}
	if err := json.Unmarshal(data, response); err != nil {
		return c.fail(err)
	}
	return nil
}

func (c *Client) fail(err error) error { return &CallError{Webhook: c.name, Err: err} }

// CallError is a failure to talk to a webhook, not the webhook refusing what it was
// asked: kube's ErrCallingWebhook. Err reads as client-go's error of the same failure
// (`Post "https://...": dial tcp ...: connect: connection refused`), which kube's
// conversion message embeds; Error is the admission wording.
type CallError struct {
	Webhook string
	Err     error
}

// Error is kube's `failed calling webhook "name": reason`.
func (e *CallError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.Webhook, e.Err)
}

// Unwrap returns the reason.
func (e *CallError) Unwrap() error { return e.Err }

// StatusError is an answer with an HTTP status outside 2xx. When the body is a
// Kubernetes Status, Reason and Message are its own; otherwise Message is client-go's
// text for the code.
type StatusError struct {
	Code    int
	Reason  string
	Message string
}

// Error is the message.
func (e *StatusError) Error() string { return e.Message }

// TooLargeError is an answer longer than the client reads.
type TooLargeError struct {
	Limit int64
}

// Error names the limit.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the webhook's response is larger than %d bytes", e.Limit)
}

// statusErrorOf reads an error answer as client-go does: a Status body as it is,
// otherwise the generic message of the code (with the text of a text body for a 500).
func statusErrorOf(resp *http.Response, body []byte) *StatusError {
	var st struct {
		Kind    string `json:"kind"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Reason  string `json:"reason"`
		Code    int    `json:"code"`
	}
	if json.Unmarshal(body, &st) == nil && st.Kind == "Status" && st.Status == "Failure" {
		code := st.Code
		if code == 0 {
			code = resp.StatusCode
		}
		return &StatusError{Code: code, Reason: st.Reason, Message: st.Message}
	}
	serverMessage := "unknown"
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/") {
		serverMessage = strings.TrimSpace(string(body))
	}
	e := &StatusError{Code: resp.StatusCode}
	switch resp.StatusCode {
	case http.StatusBadRequest:
		e.Reason, e.Message = "BadRequest", "the server rejected our request for an unknown reason"
	case http.StatusUnauthorized:
		e.Reason, e.Message = "Unauthorized", "the server has asked for the client to provide credentials"
	case http.StatusForbidden:
		e.Reason, e.Message = "Forbidden", serverMessage
	case http.StatusNotFound:
		e.Reason, e.Message = "NotFound", "the server could not find the requested resource"
	case http.StatusConflict:
		e.Reason, e.Message = "Conflict", "the server reported a conflict"
	case http.StatusTooManyRequests:
		e.Reason, e.Message = "TooManyRequests", "the server has received too many requests and has asked us to try again later"
	case http.StatusInternalServerError:
		e.Reason, e.Message = "InternalError", fmt.Sprintf("an error on the server (%q) has prevented the request from succeeding", serverMessage)
	case http.StatusServiceUnavailable:
		e.Reason, e.Message = "ServiceUnavailable", "the server is currently unable to handle the request"
	case http.StatusGatewayTimeout:
		e.Reason, e.Message = "Timeout", "the server was unable to return a response in the time allotted, but may still be processing the request"
	default:
		e.Message = fmt.Sprintf("the server responded with the status code %d but did not return more information", resp.StatusCode)
	}
	return e
}
