// Generated from the core service's OpenAPI document by test/unit/web/api-types.test.ts; do not edit.
// Regenerate: UPDATE_API_TYPES=1 npx mocha test/unit/web/api-types.test.ts
export interface paths {
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The web page (HTML); its deep links (/runs/{id}, ...) answer the same page */
        get: operations["showHomePage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The sign-in page (HTML) */
        get: operations["showSignInPage"];
        put?: never;
        /** Sign in from the HTML form; on success, on to `next` with the session cookie */
        post: operations["submitSignInForm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign out from a page; on to the sign-in page */
        post: operations["submitSignOutForm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with the username and password; the answer sets the session cookie
         * @description A wrong username and a wrong password get the same answer in the same time. Five tries per client address per minute; the sixth is refused with 429.
         */
        post: operations["signIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End this browser session (everywhere it is used) and drop its cookie */
        post: operations["signOut"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether sign-in is on, and who this request is */
        get: operations["getSignInSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers HTTP */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/db": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Database connectivity */
        get: operations["getDatabaseHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/concurrency": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Assistant sessions running and queued, and the limit */
        get: operations["getConcurrencyHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Service health with adapters, concurrency and running workflows */
        get: operations["getApiHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the database and Temporal answer, and a worker polls each task queue */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Metrics for Prometheus: requests, turns, runs, approvals, streams, chat, Temporal workers */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/update-check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether a newer release exists (source builds: always false, no outside request) */
        get: operations["checkForUpdate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The configuration as it applies: settings and which integrations are configured, never a secret
         * @description Defaults < `<home>/config.yaml` < (with `codebase_id`) that codebase's `.cairn/config.yaml` < environment. Tokens, keys, passwords, the cookie secret, the database URL and the values of the repository env map are never shown.
         */
        get: operations["getConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/config/assistants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change assistant settings in <home>/config.yaml; the next turn uses them, no restart
         * @description Keyed by assistant (`claude`, `codex`); each value sets that setting, `null` removes it. The file keeps its comments and other keys and is replaced atomically. An unknown assistant or setting is a 400 naming it.
         */
        patch: operations["updateAssistantConfig"];
        trace?: never;
    };
    "/api/codebases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Registered codebases, oldest first
         * @description At most `limit` codebases (default 50). When more follow, the response carries `Link: <...>; rel="next"`: follow it (or pass its `cursor`) for the next page.
         */
        get: operations["listCodebases"];
        put?: never;
        /**
         * Register a codebase by cloning a URL or by linking a local path
         * @description Exactly one of `url` (https, ssh, git@host:owner/repo, file:// or an absolute path of a bare repository) and `path` (a local git checkout). Registering the same repository again returns the existing codebase with 200. Assistant keys found in the repository env files block the registration (422) unless `allowEnvKeys` is true.
         */
        post: operations["registerCodebase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/codebases/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One codebase */
        get: operations["getCodebase"];
        put?: never;
        post?: never;
        /**
         * Delete a codebase, its worktrees, environments and managed folders
         * @description Runs in progress on it are cancelled. A codebase registered by path keeps the user checkout: only Cairn folders are removed.
         */
        delete: operations["deleteCodebase"];
        options?: never;
        head?: never;
        /**
         * Grant or revoke env-key consent, or rename a codebase
         * @description Each change of `allowEnvKeys` (a grant or a revoke) is written to the audit log at warn level.
         */
        patch: operations["updateCodebase"];
        trace?: never;
    };
    "/api/codebases/{id}/environments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Isolation environments (git worktrees) of a codebase, active and destroyed */
        get: operations["listCodebaseEnvironments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Conversations, most recently active first
         * @description At most `limit` conversations (default 50). When more follow, the response carries `Link: <...>; rel="next"`: follow it (or pass its `cursor`) for the next page; it keeps the filters. A conversation active while you page moves to the front of the list, where the first page shows it.
         */
        get: operations["listConversations"];
        put?: never;
        /**
         * Start a conversation, optionally scoped to a codebase
         * @description Its turns run in a worktree of the codebase of their own (`cairn/thread-<hash>`).
         */
        post: operations["createConversation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/conversations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One conversation (deleted ones too) */
        get: operations["getConversation"];
        put?: never;
        post?: never;
        /** Soft-delete a conversation: hidden from the list, messages kept, new messages refused */
        delete: operations["deleteConversation"];
        options?: never;
        head?: never;
        /** Rename a conversation */
        patch: operations["renameConversation"];
        trace?: never;
    };
    "/api/conversations/{id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Messages of a conversation, newest first, in pages
         * @description Pass `nextCursor` as `before` for the next older page. Pages are keyed on the message id, so messages arriving meanwhile never shift or repeat a page.
         */
        get: operations["listMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/conversations/{id}/message": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a message; the answer streams on /api/stream/{id} and lands in the messages
         * @description Answers 202 once the message is stored. Turns run one at a time per conversation, in arrival order, and at most MAX_CONCURRENT_CONVERSATIONS at once; the rest wait.
         */
        post: operations["sendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/conversations/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel the turn running now: the assistant stops, its output so far is kept
         * @description The turn ends `cancelled` (event `turn_cancelled` on the stream) within a heartbeat of the assistant, about 10 s at most; queued messages are answered next as usual.
         */
        post: operations["cancelTurn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/conversations/{id}/command": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a chat command (`/status`, `/workflow run <name> …`, `/approve`, …) in a conversation
         * @description The commands every door shares: `/help`, `/status`, `/cancel`, `/new`, `/codebase [name | url | path]`, `/workflow list`, `/workflow run <name> [message]`, `/approve [run id] [comment]`, `/reject [run id] <reason>`. An unknown `/word` answers with the help (`ok: false`); text that is not a command is refused (400 `not_a_command`): send it as a message instead.
         */
        post: operations["runChatCommand"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/stream/{conversationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live events of a conversation (or of every workflow, for `__dashboard__`)
         * @description text/event-stream. Every frame has an `id:` (its journal id) and JSON `data` with a `type`. Reconnect with Last-Event-ID (or `?lastEventId=`) to receive everything missed, including events written by other processes or before a restart. Without either, the stream starts with the next event. A comment line is sent every 15 s.
         */
        get: operations["streamConversation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Workflow runs, newest first, in pages */
        get: operations["listRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/by-worker/{platformId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The newest run started from a worker conversation */
        get: operations["getRunByWorker"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/{runId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A run and its events */
        get: operations["getRun"];
        put?: never;
        post?: never;
        /** Delete a finished run and its events */
        delete: operations["deleteRun"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/{runId}/diff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A run's changes against its base branch: commits, uncommitted and new files, from the merge-base */
        get: operations["getRunDiff"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/{runId}/artifacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The files a run wrote to its artifacts folder ($ARTIFACTS_DIR), folders walked */
        get: operations["listRunArtifacts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/{runId}/artifacts/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One of a run's artifacts, to download
         * @description The path is one URL segment: the listed `path` URL-encoded whole (`/` as `%2F`). It stays inside the run's artifacts folder: `..`, absolute paths, links that lead outside and anything but a regular file are refused. UTF-8 text is sent as `text/plain; charset=utf-8`, anything else as `application/octet-stream`, always as an attachment.
         */
        get: operations["getRunArtifact"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Workflow runs enriched for the dashboard, with counts per status
         * @description The counts per status follow every filter but `status` itself (workflow, codebase, dates, text), so they say how many runs each status button would show.
         */
        get: operations["dashboardRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/{name}/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a workflow run on a conversation; it works in a worktree of its own */
        post: operations["startRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/{runId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a running or paused run */
        post: operations["cancelRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/{runId}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve the waiting gate of a paused run */
        post: operations["approveRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/{runId}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Reject the waiting gate of a paused run: the run is cancelled, unless the gate reworks */
        post: operations["rejectRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/{runId}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume a failed run: completed nodes are kept, the rest run again */
        post: operations["resumeRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/{runId}/abandon": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop a run for good, whatever it is doing */
        post: operations["abandonRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/runs/{runId}/rerun": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a new run of an ended run: the same workflow (as it is now), message and inputs, in the same conversation */
        post: operations["rerunWorkflowRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Bundled and project workflows; files that fail to load are listed in errors */
        get: operations["listWorkflows"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Validate a definition without saving it */
        post: operations["validateWorkflow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workflows/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One workflow, the project one when it overrides a bundled one */
        get: operations["getWorkflow"];
        /** Create or replace a project workflow (.cairn/workflows/<name>.yaml under cwd) */
        put: operations["saveWorkflow"];
        post?: never;
        /** Delete a project workflow; bundled workflows cannot be deleted */
        delete: operations["deleteWorkflow"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/commands": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Bundled and project commands (named prompts)
         * @description Lookup order: .cairn/commands/, then commands.folder, then the bundled commands; the first wins.
         */
        get: operations["listCommands"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Workflow schedules: each codebase's workflows that declare a schedule, with their state */
        get: operations["listSchedules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/schedules/{id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pause a schedule: it fires no more until unpaused */
        post: operations["pauseSchedule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/schedules/{id}/unpause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Unpause a schedule */
        post: operations["unpauseSchedule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/schedules/{id}/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Fire a schedule now (paused or not), with its overlap policy */
        post: operations["triggerSchedule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/github": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a GitHub webhook (issue comments, issues, pull requests that mention the bot)
         * @description Verified with X-Hub-Signature-256 (HMAC SHA-256 of the raw body with WEBHOOK_SECRET). A comment, issue or pull request that mentions GITHUB_BOT_MENTION (or a comment that is a command) is recorded and answered in the thread; anything else is acknowledged and ignored.
         */
        post: operations["receiveGitHubWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/gitlab": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a GitLab webhook (notes, issues, merge requests that mention the bot)
         * @description Verified with X-Gitlab-Token (GITLAB_WEBHOOK_SECRET, compared in constant time) and, when GITLAB_WEBHOOK_SIGNING_SECRET is set, the signed headers webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks, 5 minutes of tolerance).
         */
        post: operations["receiveGitLabWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description RFC 9457 problem details. */
        Problem: {
            /** @description https://cairn.dev/problems/<code> */
            type: string;
            title: string;
            status: number;
            detail: string;
            /** @description Stable snake_case problem code. */
            code: string;
            /** @description The request path. */
            instance?: string;
            errors?: {
                /** @description JSON Pointer of the failing field, e.g. /body/message. */
                path: string;
                message: string;
            }[];
        } & {
            [key: string]: unknown;
        };
        DatabaseHealth: {
            /** @enum {string} */
            status: "ok" | "error";
            /** @enum {string} */
            database: "sqlite" | "postgres";
        };
        ConcurrencyHealth: {
            /** @enum {string} */
            status: "ok" | "error";
            /** @description assistant turns running now */
            active: number;
            /** @description messages waiting for a free assistant session */
            queued: number;
            maxConcurrent: number;
        };
        ChatAdapterHealth: {
            /** @enum {string} */
            status: "not_configured" | "connecting" | "ready" | "failing" | "stopped";
            /** @description why it fails, or the bot it is connected as */
            detail?: string;
            /** Format: date-time */
            since?: string;
        };
        Readiness: {
            /** @enum {string} */
            status: "ready" | "not_ready";
            database: {
                ok: boolean;
                /** @description why it is not ready */
                detail?: string;
            };
            temporal: {
                ok: boolean;
                /** @description why it is not ready */
                detail?: string;
            };
            workers: {
                ok: boolean;
                /** @description why it is not ready */
                detail?: string;
                queues: {
                    name: string;
                    /** @enum {string} */
                    kind: "workflow" | "activity";
                    /** @description workers that polled the queue in the last two minutes */
                    pollers: number;
                }[];
            };
        };
        Codebase: {
            id: string;
            name: string;
            /** @description the URL it was cloned from (credentials removed) */
            url: string | null;
            /** @description the local path it was registered with */
            path: string | null;
            /** @description the managed checkout Cairn works from */
            sourcePath: string;
            defaultBranch: string | null;
            /** @description consent to assistant keys in the repository env files */
            allowEnvKeys: boolean;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        IsolationEnvironment: {
            id: string;
            codebaseId: string;
            /** @enum {string} */
            kind: "thread" | "task" | "issue" | "pr" | "run";
            key: string;
            branch: string;
            baseBranch: string | null;
            path: string;
            /** @enum {string} */
            status: "active" | "destroying" | "destroyed";
            /** Format: date-time */
            lastActivityAt: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            destroyedAt: string | null;
        };
        Conversation: {
            id: string;
            /** @description web, or the chat or code-host platform it came from */
            platform: string;
            /** @description the `{id}` of the conversation endpoints and its stream */
            platform_conversation_id: string;
            codebase_id: string | null;
            title: string | null;
            /** @description the worktree its turns run in, once created */
            isolation_environment_id: string | null;
            deleted: boolean;
            /** Format: date-time */
            deleted_at: string | null;
            /** Format: date-time */
            last_activity_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        ConversationDetail: {
            id: string;
            /** @description web, or the chat or code-host platform it came from */
            platform: string;
            /** @description the `{id}` of the conversation endpoints and its stream */
            platform_conversation_id: string;
            codebase_id: string | null;
            title: string | null;
            /** @description the worktree its turns run in, once created */
            isolation_environment_id: string | null;
            deleted: boolean;
            /** Format: date-time */
            deleted_at: string | null;
            /** Format: date-time */
            last_activity_at: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description the conversation's workflow execution in the Temporal Web UI (TEMPORAL_UI_URL); null when no UI is known */
            temporalUrl: string | null;
        };
        Message: {
            /** @description increases with arrival */
            id: number;
            conversation_id: string;
            /** @enum {string} */
            role: "user" | "assistant" | "tool" | "system" | "error";
            content: string;
            /** @description kind (text, tool_call, tool_result, session, error) and its details */
            metadata: Record<string, never>;
            /**
             * @description user messages only: the state of the turn answering it
             * @enum {string|null}
             */
            turn_status: "queued" | "running" | "completed" | "failed" | "cancelled" | null;
            /** @description output rows: the user message they answer */
            reply_to_message_id: number | null;
            /** Format: date-time */
            created_at: string;
        };
        MessagePage: {
            items: components["schemas"]["Message"][];
            /** @description Present when another page follows. */
            nextCursor?: string;
        };
        MessageAccepted: {
            message_id: number;
            conversation_id: string;
            /**
             * @description started: its turn begins now; queued: it waits for an earlier turn or a free assistant session
             * @enum {string}
             */
            status: "started" | "queued";
            /** @description queued only: waiting messages accepted before it, plus one (0 when started) */
            position: number;
        };
        WorkflowLookup: {
            /** @description the definition as written */
            workflow: Record<string, never>;
            filename: string;
            /** @enum {string} */
            source: "bundled" | "project";
        };
        WorkflowList: {
            workflows: components["schemas"]["WorkflowLookup"][];
            /** @description files that failed YAML parsing or validation; the others still load */
            errors?: {
                filename: string;
                source: string;
                error: string;
            }[];
        };
        WorkflowDocument: {
            /** @description the definition as written */
            workflow: Record<string, never>;
            filename: string;
            /** @enum {string} */
            source: "bundled" | "project";
            /** @description the file's YAML text as written, comments included (absent when unreadable) */
            text?: string;
        };
        WorkflowRun: {
            runId: string;
            workflowName: string;
            /** @enum {string} */
            status: "pending" | "running" | "paused" | "completed" | "failed" | "cancelled" | "abandoned";
            message: string | null;
            /** @description values of the workflow's declared inputs, defaults applied; null when it declares none */
            inputs: {
                [key: string]: string;
            } | null;
            conversationId: string | null;
            codebaseId: string | null;
            isolationEnvironmentId: string | null;
            workerPlatformId: string | null;
            currentNode: string | null;
            error: string | null;
            totalTokens: number;
            totalCostUsd: number;
            /**
             * Format: date-time
             * @description while a node waits out the assistant's usage limit: when the run goes on
             */
            waitingUntil: string | null;
            /** @description the run whose sub-workflow node started this one */
            parentRunId: string | null;
            /** @description that run's node */
            parentNodeId: string | null;
            /** @description the workflow schedule that started this run (GET /api/schedules) */
            scheduleId: string | null;
            /** Format: date-time */
            startedAt: string | null;
            /** Format: date-time */
            completedAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        WorkflowRunEvent: {
            id: number;
            type: string;
            nodeId: string | null;
            actor: string | null;
            payload: Record<string, never>;
            /** Format: date-time */
            createdAt: string;
        };
        RunDiff: {
            runId: string;
            /** @description the branch the worktree started from */
            baseBranch: string;
            /** @description the commit the worktree and its base branch share; the diff starts there */
            mergeBase: string;
            /** @description the commit the worktree is at */
            head: string;
            /** @description every changed file (at most 3000), committed or not, new files included */
            files: components["schemas"]["RunChangedFile"][];
            /** @description the unified diff, cut at a line end after 1048576 bytes */
            patch: string;
            /** @description the patch or the file list was cut */
            truncated: boolean;
        };
        RunChangedFile: {
            path: string;
            /** @description a renamed file's path before */
            oldPath: string | null;
            /** @enum {string} */
            status: "added" | "modified" | "deleted" | "renamed";
            additions: number;
            deletions: number;
            /** @description a binary file: git counts no lines */
            binary: boolean;
        };
        NodeTimeLimit: {
            nodeId: string;
            /** @description the node's timeout, or the default node timeout; null when it may wait indefinitely */
            timeoutMs: number | null;
            /** @description the pause between tries of a node that retries; 0 otherwise */
            retryDelayMs: number;
        };
        RunArtifact: {
            /** @description the path inside the artifacts folder, / between folders; URL-encode it whole (/ as %2F) to download */
            path: string;
            /** @description the file's name */
            name: string;
            /** @description bytes */
            size: number;
            /** Format: date-time */
            modifiedAt: string;
        };
        RunArtifactList: {
            runId: string;
            /** @description regular files only, in path order, at most 1000 */
            artifacts: components["schemas"]["RunArtifact"][];
            /** @description the folder holds more than 1000 files */
            truncated: boolean;
        };
        WorkflowSchedule: {
            /** @description the Temporal Schedule id (cairn-wf-<codebaseId>-<workflow>) */
            id: string;
            codebaseId: string;
            codebaseName: string;
            workflowName: string;
            /** @description where the workflow comes from: project or bundled (bundled ones start paused) */
            source: string;
            cron: string;
            timezone: string | null;
            /** @description the message its runs start with ($ARGUMENTS) */
            message: string;
            /** @enum {string} */
            overlap: "skip" | "buffer_one" | "buffer_all" | "cancel_other" | "terminate_other" | "allow_all";
            catchupWindowMs: number;
            paused: boolean;
            /** @description why it is paused, or what last changed its state */
            note: string | null;
            /** @description the next times it fires (up to 3) */
            nextRunsAt: string[];
            /** Format: date-time */
            lastFiredAt: string | null;
        };
        Config: {
            /** @enum {string} */
            defaultAssistant: "claude" | "codex";
            assistants: {
                claude: {
                    model: string | null;
                    settingSources: ("project" | "user")[];
                    binaryPath: string | null;
                };
                codex: {
                    model: string | null;
                    modelReasoningEffort: string | null;
                    webSearchMode: string | null;
                    additionalDirectories: string[];
                    binaryPath: string | null;
                };
            };
            streaming: {
                /** @enum {string} */
                telegram: "stream" | "batch";
                /** @enum {string} */
                discord: "stream" | "batch";
                /** @enum {string} */
                slack: "stream" | "batch";
                /** @enum {string} */
                github: "stream" | "batch";
                /** @enum {string} */
                gitlab: "stream" | "batch";
            };
            paths: {
                workspaces: string;
                /** @description null: each codebase's worktrees live in its workspace (worktrees/) */
                worktrees: string | null;
            };
            concurrency: {
                maxConversations: number;
            };
            retention: {
                /** @description SESSION_RETENTION_DAYS */
                sessionRetentionDays: number;
                /** @description STALE_THRESHOLD_DAYS */
                staleWorktreeDays: number;
                /** @description MAX_WORKTREES_PER_CODEBASE */
                maxWorktreesPerCodebase: number;
                /** @description CLEANUP_INTERVAL_HOURS */
                cleanupIntervalHours: number;
            };
            allowTargetRepoKeys: boolean;
            commands: {
                folder: string | null;
                autoLoad: boolean;
            };
            worktree: {
                /** @description null: the remote default branch, detected */
                baseBranch: string | null;
                copyFiles: string[];
            };
            docs: {
                path: string;
            };
            defaults: {
                loadDefaultCommands: boolean;
                loadDefaultWorkflows: boolean;
                loadArchonFolders: boolean;
            };
            /** @description names of the variables the repository's env map gives Claude; the values are never shown */
            envKeys: string[];
            /** @description whether each platform's credentials are set (not whether its adapter runs) */
            integrations: {
                telegram: boolean;
                discord: boolean;
                slack: boolean;
                github: boolean;
                gitlab: boolean;
            };
            /** @enum {string} */
            database: "sqlite" | "postgres";
            /**
             * @description open: no sign-in; token: CAIRN_API_TOKEN only; form: password sign-in (and the token when set)
             * @enum {string}
             */
            signIn: "open" | "token" | "form";
            sources: {
                globalFile: string | null;
                repositoryFile: string | null;
            };
            /** @description keys of the config files that were ignored, and why (values are never quoted) */
            problems: {
                file: string;
                key: string | null;
                message: string;
            }[];
        };
    };
    responses: {
        /** @description Invalid input: validation_failed, invalid_json or invalid_cursor. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Sign-in is on and the request showed no valid session or token (authentication_required). */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Refused for where it came from: a Host the service does not answer to (host_not_allowed), or a state change sent by another site (cross_site_request). */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description No such resource (not_found). */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The body is over the size limit (payload_too_large). */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The body is not JSON (unsupported_media_type). */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description A request with this Idempotency-Key is still being handled (idempotency_in_progress). */
        IdempotencyInProgress: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description This Idempotency-Key came with another request (idempotency_key_reused). */
        IdempotencyKeyReused: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description An unexpected server error (internal_error). */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    showHomePage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the home page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    showSignInPage: {
        parameters: {
            query?: {
                /** @description the page of this site to return to */
                next?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the sign-in form */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            /** @description already signed in: on to `next` */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            403: components["responses"]["Forbidden"];
            /** @description this server has no password sign-in */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    submitSignInForm: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    username: string;
                    password: string;
                    /** @description the page of this site to return to */
                    next?: string;
                };
            };
        };
        responses: {
            /** @description signed in: on to `next` (or /), with the session cookie */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description the form again, saying the username or password is wrong */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            403: components["responses"]["Forbidden"];
            /** @description this server has no password sign-in */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description the form again, saying when to try again */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": unknown;
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    submitSignOutForm: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description signed out: on to the sign-in page */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    username: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description signed in: the Set-Cookie header carries the session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        username: string;
                        /** Format: date-time */
                        expiresAt: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description sign_in_failed: the username or the password is wrong */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            403: components["responses"]["Forbidden"];
            /** @description sign_in_not_configured: this server has no password sign-in */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description too_many_sign_in_attempts: a sixth try from this address within a minute (Retry-After says when to try again) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description signed out (also when there was no session) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    getSignInSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the sign-in state */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the API refuses requests without a session or the token */
                        signInRequired: boolean;
                        /** @description a browser can sign in with a username and password */
                        passwordSignIn: boolean;
                        signedIn: boolean;
                        user: string | null;
                        /**
                         * @description how this request proved who it is
                         * @enum {string|null}
                         */
                        via: "session" | "token" | null;
                        /**
                         * Format: date-time
                         * @description when this request's session ends
                         */
                        expiresAt: string | null;
                    };
                };
            };
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description alive */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                    };
                };
            };
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    getDatabaseHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description reachable */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatabaseHealth"];
                };
            };
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
            /** @description unreachable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DatabaseHealth"];
                };
            };
        };
    };
    getConcurrencyHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description current figures */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConcurrencyHealth"];
                };
            };
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
            /** @description the database cannot be reached: status error, and the figures are zero (unknown) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConcurrencyHealth"];
                };
            };
        };
    };
    getApiHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description service health */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok" | "degraded";
                        /** @description the adapter serving this API (web) */
                        adapter: string;
                        /** @description every adapter switched on */
                        adapters: string[];
                        /** @description each chat adapter's state: a platform that fails never takes the service down */
                        chat: {
                            telegram: components["schemas"]["ChatAdapterHealth"];
                            discord: components["schemas"]["ChatAdapterHealth"];
                            slack: components["schemas"]["ChatAdapterHealth"];
                        };
                        /** @description present when this process receives code-host webhooks: the state of each that does (failing with the reason when its token is missing or refused) */
                        codeHosts?: {
                            github?: components["schemas"]["ChatAdapterHealth"];
                            gitlab?: components["schemas"]["ChatAdapterHealth"];
                        };
                        concurrency: {
                            /** @description assistant turns running now */
                            active: number;
                            /** @description messages waiting for a free assistant session */
                            queued: number;
                            maxConcurrent: number;
                        };
                        /** @description workflow runs in status running */
                        runningWorkflows: number;
                        version: string;
                        /** @enum {string} */
                        database: "sqlite" | "postgres";
                        /** @description the Temporal Web UI's address (TEMPORAL_UI_URL, else the embedded server's); null when none is known */
                        temporalUi: string | null;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description ready: work sent now is picked up */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
            /** @description not ready: each check says why */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the metrics, Prometheus text format 0.0.4 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": unknown;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    checkForUpdate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description version information */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        updateAvailable: boolean;
                        currentVersion: string;
                        latestVersion: string;
                        releaseUrl: string;
                        /** @description whether a release server was asked; false for a source build, which updates through git */
                        checked: boolean;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    getConfig: {
        parameters: {
            query?: {
                /** @description layer this codebase's .cairn/config.yaml */
                codebase_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the configuration */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Config"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description no codebase with that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    updateAssistantConfig: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    claude?: {
                        model?: string | null;
                        settingSources?: ("project" | "user")[] | null;
                    };
                    codex?: {
                        model?: string | null;
                        modelReasoningEffort?: string | null;
                        webSearchMode?: string | null;
                        /** @description absolute paths */
                        additionalDirectories?: string[] | null;
                    };
                };
            };
        };
        responses: {
            /** @description the configuration as it now applies */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Config"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description config_file_refused: config.yaml is not valid YAML, or the result would not be */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    listCodebases: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: number;
                /** @description Opaque cursor from the previous page (nextCursor). */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of codebases */
            200: {
                headers: {
                    /** @description Present when more rows follow this page: `<path?...&cursor=...&limit=...>; rel="next"` (RFC 8288), the same request continued after the last row. Absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Codebase"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    registerCodebase: {
        parameters: {
            query?: never;
            header?: {
                /** @description A key of your choosing (1 to 255 printable characters) that makes a retry safe: a repeat within 24 h gets the first answer, with `Idempotent-Replayed: true`, and does nothing again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url?: string;
                    path?: string;
                    /** @default false */
                    allowEnvKeys?: boolean;
                    name?: string;
                } & ({
                    url: string;
                } | {
                    path: string;
                });
            };
        };
        responses: {
            /** @description already registered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Codebase"];
                };
            };
            /** @description registered */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Codebase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description the workspace folder is occupied by something Cairn did not put there */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description assistant keys in the env files, or the clone failed */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    getCodebase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the codebase */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Codebase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteCodebase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description what was removed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        deleted: boolean;
                        cancelledRuns: number;
                        /** @description chat turns running in the codebase's worktrees, cancelled first */
                        cancelledTurns: number;
                        removedWorktrees: number;
                        removedWorkspace: boolean;
                        failedWorktrees: {
                            environmentId: string;
                            error: string;
                        }[];
                        /** @description branches Cairn made in your repository (a codebase registered by path), deleted with their worktrees */
                        removedBranches: string[];
                        /** @description branches Cairn made that hold commits no other branch has: kept, so no work is lost */
                        keptBranches: {
                            branch: string;
                            uniqueCommits: number;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    updateCodebase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    allowEnvKeys?: boolean;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description the updated codebase */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Codebase"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    listCodebaseEnvironments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description environments */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IsolationEnvironment"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    listConversations: {
        parameters: {
            query?: {
                codebase_id?: string;
                /** @description include soft-deleted conversations */
                include_deleted?: boolean;
                /** @description only conversations whose title contains this text, ignoring case (`%` and `_` match themselves) */
                q?: string;
                /** @description Page size. */
                limit?: number;
                /** @description Opaque cursor from the previous page (nextCursor). */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of conversations */
            200: {
                headers: {
                    /** @description Present when more rows follow this page: `<path?...&cursor=...&limit=...>; rel="next"` (RFC 8288), the same request continued after the last row. Absent on the last page. */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    createConversation: {
        parameters: {
            query?: never;
            header?: {
                /** @description A key of your choosing (1 to 255 printable characters) that makes a retry safe: a repeat within 24 h gets the first answer, with `Idempotent-Replayed: true`, and does nothing again. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    codebase_id?: string;
                    title?: string;
                };
            };
        };
        responses: {
            /** @description the new conversation */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["IdempotencyInProgress"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["InternalError"];
        };
    };
    getConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the conversation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationDetail"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the deleted conversation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    renameConversation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    title: string;
                };
            };
        };
        responses: {
            /** @description the renamed conversation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    listMessages: {
        parameters: {
            query?: {
                /** @description Page size. */
                limit?: number;
                /** @description Opaque cursor from the previous page (nextCursor). */
                before?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of messages */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessagePage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    sendMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description A key of your choosing (1 to 255 printable characters) that makes a retry safe: a repeat within 24 h gets the first answer, with `Idempotent-Replayed: true`, and does nothing again. */
                "Idempotency-Key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    message: string;
                };
            };
        };
        responses: {
            /** @description stored; its turn started or is queued */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageAccepted"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyInProgress"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["InternalError"];
        };
    };
    cancelTurn: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the cancel was handed to the conversation */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the message whose turn is being cancelled */
                        message_id: number;
                        conversation_id: string;
                        /** @enum {string} */
                        status: "cancelling";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description no conversation with that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description no_turn_running: no turn of this conversation is running */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    runChatCommand: {
        parameters: {
            query?: never;
            header?: {
                /** @description A key of your choosing (1 to 255 printable characters) that makes a retry safe: a repeat within 24 h gets the first answer, with `Idempotent-Replayed: true`, and does nothing again. */
                "Idempotency-Key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    text: string;
                };
            };
        };
        responses: {
            /** @description the command ran, or was refused with its reason */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        command: "help" | "status" | "cancel" | "new" | "codebase" | "workflow list" | "workflow run" | "approve" | "reject" | "unknown";
                        /** @description false when the command was refused; `text` says why */
                        ok: boolean;
                        /** @description the answer, as markdown */
                        text: string;
                        /** @description set when the command started another conversation (`/new`, `/codebase`): continue there */
                        conversation?: {
                            id: string;
                            platformConversationId: string;
                            codebaseId: string | null;
                        };
                        /** @description the run the command started or decided */
                        runId?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description no conversation with that id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description conversation_deleted: the conversation was deleted */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["InternalError"];
        };
    };
    streamConversation: {
        parameters: {
            query?: {
                /** @description alternative to the Last-Event-ID header */
                lastEventId?: string;
            };
            header?: never;
            path: {
                conversationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the event stream */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    listRuns: {
        parameters: {
            query?: {
                /** @description one status or several, comma-separated */
                status?: string;
                /** @description created at or after */
                since?: string;
                /** @description created before */
                until?: string;
                workflowName?: string;
                conversationId?: string;
                codebaseId?: string;
                /** @description Page size. */
                limit?: number;
                /** @description Opaque cursor from the previous page (nextCursor). */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of runs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["WorkflowRun"][];
                        /** @description Present when another page follows. */
                        nextCursor?: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    getRunByWorker: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                platformId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the run with its events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: components["schemas"]["WorkflowRun"];
                        events: components["schemas"]["WorkflowRunEvent"][];
                        /** @description the run's execution in the Temporal Web UI (TEMPORAL_UI_URL); null when no UI is known */
                        temporalUrl: string | null;
                        /** @description the runs this run's sub-workflow nodes started, oldest first */
                        children: {
                            runId: string;
                            workflowName: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "paused" | "completed" | "failed" | "cancelled" | "abandoned";
                            /** @description the sub-workflow node that started it */
                            nodeId: string | null;
                        }[];
                        /** @description each node's effective timeout from the run's definition: a running node quiet for longer has likely stalled */
                        nodeLimits: components["schemas"]["NodeTimeLimit"][];
                        /** @description every node of the run's stored definition, in its order: the graph the run follows (empty when the definition no longer validates) */
                        nodes: {
                            nodeId: string;
                            /** @description the nodes it waits for, in the order written */
                            dependsOn: string[];
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    getRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the run with its events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run: components["schemas"]["WorkflowRun"];
                        events: components["schemas"]["WorkflowRunEvent"][];
                        /** @description the run's execution in the Temporal Web UI (TEMPORAL_UI_URL); null when no UI is known */
                        temporalUrl: string | null;
                        /** @description the runs this run's sub-workflow nodes started, oldest first */
                        children: {
                            runId: string;
                            workflowName: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "paused" | "completed" | "failed" | "cancelled" | "abandoned";
                            /** @description the sub-workflow node that started it */
                            nodeId: string | null;
                        }[];
                        /** @description each node's effective timeout from the run's definition: a running node quiet for longer has likely stalled */
                        nodeLimits: components["schemas"]["NodeTimeLimit"][];
                        /** @description every node of the run's stored definition, in its order: the graph the run follows (empty when the definition no longer validates) */
                        nodes: {
                            nodeId: string;
                            /** @description the nodes it waits for, in the order written */
                            dependsOn: string[];
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    getRunDiff: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the changes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunDiff"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description run_has_no_worktree: the run has no worktree of its own (not started, isolation: none, no codebase, no base branch); worktree_removed: its worktree was cleaned up; base_branch_missing: its base branch is gone */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    listRunArtifacts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the files */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunArtifactList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    getRunArtifact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                runId: string;
                path: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the file's bytes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": unknown;
                };
            };
            /** @description invalid_artifact_path: the path leaves the folder or is not a regular file */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description not_found: no such run; artifact_not_found: no such file */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            500: components["responses"]["InternalError"];
        };
    };
    dashboardRuns: {
        parameters: {
            query?: {
                /** @description one status or several, comma-separated */
                status?: string;
                /** @description created at or after */
                since?: string;
                /** @description created before */
                until?: string;
                /** @description text in the workflow name, message or codebase name */
                q?: string;
                /** @description runs of this workflow (its exact name) */
                workflow?: string;
                /** @description runs on this codebase (its id) */
                codebase_id?: string;
                /** @description Page size. */
                limit?: number;
                /** @description Opaque cursor from the previous page (nextCursor). */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description a page of runs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            runId: string;
                            workflowName: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "paused" | "completed" | "failed" | "cancelled" | "abandoned";
                            message: string | null;
                            /** @description values of the workflow's declared inputs, defaults applied; null when it declares none */
                            inputs: {
                                [key: string]: string;
                            } | null;
                            conversationId: string | null;
                            codebaseId: string | null;
                            isolationEnvironmentId: string | null;
                            workerPlatformId: string | null;
                            currentNode: string | null;
                            error: string | null;
                            totalTokens: number;
                            totalCostUsd: number;
                            /**
                             * Format: date-time
                             * @description while a node waits out the assistant's usage limit: when the run goes on
                             */
                            waitingUntil: string | null;
                            /** @description the run whose sub-workflow node started this one */
                            parentRunId: string | null;
                            /** @description that run's node */
                            parentNodeId: string | null;
                            /** @description the workflow schedule that started this run (GET /api/schedules) */
                            scheduleId: string | null;
                            /** Format: date-time */
                            startedAt: string | null;
                            /** Format: date-time */
                            completedAt: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                            codebaseName: string | null;
                            nodesDone: number;
                            nodesTotal: number;
                            durationMs: number | null;
                            /**
                             * Format: date-time
                             * @description the time of the run's latest event
                             */
                            lastEventAt: string | null;
                        }[];
                        nextCursor?: string;
                        counts: {
                            pending: number;
                            running: number;
                            paused: number;
                            completed: number;
                            failed: number;
                            cancelled: number;
                            abandoned: number;
                        };
                        /** @description for each running run of the page, its nodes' effective timeouts: quiet for longer than the longest allows, it has likely stalled */
                        nodeLimits: {
                            [key: string]: components["schemas"]["NodeTimeLimit"][];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    startRun: {
        parameters: {
            query?: never;
            header?: {
                /** @description A key of your choosing (1 to 255 printable characters) that makes a retry safe: a repeat within 24 h gets the first answer, with `Idempotent-Replayed: true`, and does nothing again. */
                "Idempotency-Key"?: string;
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    message: string;
                    conversationId: string;
                    /** @description values for the workflow's declared inputs (docs/workflow-format.md, Inputs) */
                    inputs?: {
                        [key: string]: string;
                    };
                    /** @description this run's budget in US dollars, over the workflow's max_cost_usd */
                    max_cost_usd?: number;
                };
            };
        };
        responses: {
            /** @description the run, started */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyInProgress"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["InternalError"];
        };
    };
    cancelRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the run after the operation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    approveRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    comment?: string;
                };
            };
        };
        responses: {
            /** @description the run after the operation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    rejectRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description the run after the operation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    resumeRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the run after the operation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    abandonRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the run after the operation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    rerunWorkflowRun: {
        parameters: {
            query?: never;
            header?: {
                /** @description A key of your choosing (1 to 255 printable characters) that makes a retry safe: a repeat within 24 h gets the first answer, with `Idempotent-Replayed: true`, and does nothing again. */
                "Idempotency-Key"?: string;
            };
            path: {
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the new run, started */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description conflict: the run has not ended; sub_workflow_run, no_conversation, conversation_not_found, workflow_not_found, workflow_changed, workflow_requirement_missing: it cannot be started again as it was */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            422: components["responses"]["IdempotencyKeyReused"];
            500: components["responses"]["InternalError"];
        };
    };
    listWorkflows: {
        parameters: {
            query?: {
                /** @description a registered codebase checkout or worktree */
                cwd?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the workflows */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    validateWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the workflow definition (see docs/workflow-format.md) */
                    definition: unknown;
                };
            };
        };
        responses: {
            /** @description the verdict */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        valid: boolean;
                        errors?: string[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    getWorkflow: {
        parameters: {
            query?: {
                /** @description a registered codebase checkout or worktree */
                cwd?: string;
            };
            header?: never;
            path: {
                /** @description the workflow name */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the workflow */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowDocument"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    saveWorkflow: {
        parameters: {
            query: {
                /** @description a registered codebase checkout or worktree */
                cwd: string;
            };
            header?: never;
            path: {
                /** @description the workflow name */
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the workflow definition (see docs/workflow-format.md) */
                    definition: unknown;
                    /** @description the YAML text to write as is (comments and layout kept); it must parse to `definition`. Without it the definition is written out as YAML */
                    text?: string;
                };
            };
        };
        responses: {
            /** @description replaced */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowLookup"];
                };
            };
            /** @description created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowLookup"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    deleteWorkflow: {
        parameters: {
            query?: {
                /** @description a registered codebase checkout or worktree */
                cwd?: string;
            };
            header?: never;
            path: {
                /** @description the workflow name */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    listCommands: {
        parameters: {
            query?: {
                cwd?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the commands */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        commands: {
                            name: string;
                            /** @enum {string} */
                            source: "bundled" | "project";
                            description?: string;
                            argumentHint?: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    listSchedules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the schedules, brought in line with the files first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["WorkflowSchedule"][];
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            500: components["responses"]["InternalError"];
        };
    };
    pauseSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    note?: string;
                };
            };
        };
        responses: {
            /** @description the schedule, paused */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowSchedule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    unpauseSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    note?: string;
                };
            };
        };
        responses: {
            /** @description the schedule, running */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowSchedule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
        };
    };
    triggerSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description fired: its run starts shortly */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowSchedule"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    receiveGitHubWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description received: the work (if any) starts after this answer */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description `accepted`: recorded, its work starts now; `duplicate`: this request was recorded before (a redelivery); `ignored`: not addressed to the bot, or an event it does not act on
                         * @enum {string}
                         */
                        status: "accepted" | "duplicate" | "ignored";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description invalid_signature: the signature or token is missing, wrong or stale; nothing is done */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            403: components["responses"]["Forbidden"];
            /** @description the payload is over the body limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            /** @description webhook_not_configured: the secret variable named in the problem is not set */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    receiveGitLabWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description received: the work (if any) starts after this answer */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description `accepted`: recorded, its work starts now; `duplicate`: this request was recorded before (a redelivery); `ignored`: not addressed to the bot, or an event it does not act on
                         * @enum {string}
                         */
                        status: "accepted" | "duplicate" | "ignored";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description invalid_signature: the signature or token is missing, wrong or stale; nothing is done */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            403: components["responses"]["Forbidden"];
            /** @description the payload is over the body limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            /** @description webhook_not_configured: the secret variable named in the problem is not set */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
