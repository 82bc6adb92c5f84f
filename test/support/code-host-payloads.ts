let ids = 20_000;

/** A comment id no other payload of this test process has. */
export function nextCommentId(): number {
  return ids++;
}

/**
 * An issue_comment payload as GitHub sends it, on an issue or a pull request of `repository`; a
 * given `commentId` makes the same comment again (a redelivery), a new one is taken otherwise.
 */
export function issueCommentPayload(
  gitBase: string,
  repository: string,
  number: number,
  body: string,
  { pull = false, commentId = nextCommentId() }: { pull?: boolean; commentId?: number } = {},
) {
  const login = 'alice';
  return {
    action: 'created',
    issue: {
      number,
      title: `Thread ${number}`,
      body: 'Please have a look.',
      html_url: `https://github.com/${repository}/issues/${number}`,
      user: { login: 'reporter', id: 7, type: 'User' },
      ...(pull ? { pull_request: { url: 'x' } } : {}),
    },
    comment: {
      id: commentId,
      body,
      user: { login, id: 5, type: 'User' },
      updated_at: '2026-11-26T10:00:00Z',
      html_url: 'https://github.com/x',
    },
    repository: { full_name: repository, clone_url: `${gitBase}/${repository}.git`, default_branch: 'main' },
    sender: { login, id: 5, type: 'User' },
  };
}
