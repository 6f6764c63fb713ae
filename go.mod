module github.com/wavehooks/wavehooks

go 1.26

require (
	github.com/fsnotify/fsnotify v1.10.1
	github.com/stretchr/testify v1.12.1
	github.com/tailscale/hujson v0.0.0-20260727124030-b80ff77dac4f
	go.uber.org/goleak v1.3.0
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.13.0 // indirect
)
