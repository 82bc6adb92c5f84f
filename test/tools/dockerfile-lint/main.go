// Command dockerfile-lint runs BuildKit's Dockerfile checks (the rules of `docker build --check`)
// on a Dockerfile, offline: base images are not pulled, their configuration is taken as empty.
// It prints one JSON object per finding on standard output and exits 0; 2 when it cannot run.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerui"
	"github.com/opencontainers/go-digest"
)

// offlineImages answers every base image with an empty linux/amd64 configuration, so the checks
// run without a registry (there is none here).
type offlineImages struct{}

func (offlineImages) ResolveImageConfig(_ context.Context, ref string, _ sourceresolver.Opt) (string, digest.Digest, []byte, error) {
	config := []byte(`{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]},"rootfs":{"type":"layers","diff_ids":[]}}`)
	return ref, digest.FromBytes(config), config, nil
}

type finding struct {
	Rule        string `json:"rule"`
	Description string `json:"description"`
	Detail      string `json:"detail"`
	URL         string `json:"url"`
	Line        int    `json:"line"`
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "dockerfile-lint:", err)
	os.Exit(2)
}

func main() {
	if len(os.Args) != 2 {
		fail(fmt.Errorf("usage: dockerfile-lint <Dockerfile>"))
	}
	content, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	source := llb.Scratch()
	definition, err := source.Marshal(ctx)
	if err != nil {
		fail(err)
	}
	sourceMap := llb.NewSourceMap(&source, os.Args[1], "Dockerfile", content)
	sourceMap.Definition = definition
	results, err := dockerfile2llb.DockerfileLint(ctx, content, dockerfile2llb.ConvertOpt{
		Config:       dockerui.Config{LinterConfig: &linter.Config{ExperimentalAll: true}},
		SourceMap:    sourceMap,
		MetaResolver: offlineImages{},
	})
	if err != nil {
		fail(err)
	}
	if results.Error != nil {
		fail(fmt.Errorf("the Dockerfile does not build: %s", results.Error.Message))
	}
	out := json.NewEncoder(os.Stdout)
	for _, warning := range results.Warnings {
		line := 0
		if len(warning.Location.Ranges) > 0 {
			line = int(warning.Location.Ranges[0].Start.Line)
		}
		if err := out.Encode(finding{warning.RuleName, warning.Description, warning.Detail, warning.URL, line}); err != nil {
			fail(err)
		}
	}
}
