module github.com/wavehooks/wavehooks

go 1.26

require github.com/tailscale/hujson v0.0.0-20260727124030-b80ff77dac4f
