// The workflow side of tracing: spans for each workflow run (RunWorkflow), each activity it
// schedules (StartActivity) and child workflow it starts, carrying the trace on to them in
// headers. Temporal's own interceptors, bundled only when tracing is on (worker/tracing.ts):
// they add no command and no yield point, so histories replay the same with or without them.
export { interceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js';
