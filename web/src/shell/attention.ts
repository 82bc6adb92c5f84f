// Tells the user an approval waits: the count in the tab's title, and a browser notification
// when the count grows (once permission was given from the header's button).
const BASE_TITLE = 'Cairn';
let previous = 0;

export function titleFor(waiting: number, base = BASE_TITLE): string {
  return waiting > 0 ? `(${waiting}) ${base}` : base;
}

export function showWaitingApprovals(waiting: number): void {
  document.title = titleFor(waiting);
  if (waiting > previous && typeof Notification !== 'undefined' && Notification.permission === 'granted') {
    new Notification('Cairn: an approval is waiting', {
      body: waiting === 1 ? 'A run waits for your approval.' : `${waiting} runs wait for your approval.`,
      tag: 'cairn-approvals',
    });
  }
  previous = waiting;
}
