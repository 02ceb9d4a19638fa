module github.com/apikit-dev/apikit

go 1.24
