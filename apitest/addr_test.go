package apitest

import (
	"net"
	"testing"
)

func TestClientAddr_NamesLoopbackForAListenerOnEveryAddress(t *testing.T) {
	tests := []struct {
		name string
		addr net.Addr
		want string
	}{
		{"a loopback listener is its own address", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8443}, "127.0.0.1:8443"},
		{"an IPv6 listener keeps its brackets", &net.TCPAddr{IP: net.IPv6loopback, Port: 8443}, "[::1]:8443"},
		{"0.0.0.0 is reached on 127.0.0.1", &net.TCPAddr{IP: net.IPv4zero, Port: 8443}, "127.0.0.1:8443"},
		{"[::] is reached on 127.0.0.1", &net.TCPAddr{IP: net.IPv6unspecified, Port: 8443}, "127.0.0.1:8443"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clientAddr(tt.addr); got != tt.want {
				t.Errorf("clientAddr(%v) = %q, want %q", tt.addr, got, tt.want)
			}
		})
	}
}
