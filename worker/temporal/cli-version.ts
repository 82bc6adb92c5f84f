/**
 * The Temporal CLI Cairn builds when none is installed. v1.5.1's module has no replace
 * directives, so `go install module@version` can build it from the Go module proxy.
 */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
