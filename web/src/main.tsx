import { lazy, StrictMode, Suspense, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ApiError } from './api/client';
import { Layout } from './shell/Layout';
import { NotFound } from './shell/NotFound';
import { ConversationList } from './chat/ConversationList';
import { ConversationPage } from './chat/ConversationPage';
import { RunList } from './runs/RunList';
import { RunPage } from './runs/RunPage';
import { CodebasesPage } from './codebases/CodebasesPage';
import { SettingsPage } from './settings/SettingsPage';
import './styles.css';

// The workflow pages carry the YAML parser and the editor: loaded when first opened.
const WorkflowListPage = lazy(() => import('./workflows/WorkflowListPage'));
const WorkflowEditorPage = lazy(() => import('./workflows/WorkflowEditorPage'));
const later = (page: ReactNode) => <Suspense fallback={<p className="muted">Loading…</p>}>{page}</Suspense>;

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx (a run that does not exist) is an answer, not a hiccup: shown at once, not retried.
      retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 3,
      refetchOnWindowFocus: false,
      staleTime: 2_000,
    },
  },
});

const router = createBrowserRouter([
  {
    element: <Layout />,
    children: [
      { index: true, element: <ConversationList /> },
      { path: 'conversations/:id', element: <ConversationPage /> },
      { path: 'runs', element: <RunList /> },
      { path: 'runs/:runId', element: <RunPage /> },
      { path: 'workflows', element: later(<WorkflowListPage />) },
      { path: 'workflows/:name', element: later(<WorkflowEditorPage />) },
      { path: 'new-workflow', element: later(<WorkflowEditorPage />) },
      { path: 'codebases', element: <CodebasesPage /> },
      { path: 'settings', element: <SettingsPage /> },
      { path: '*', element: <NotFound /> },
    ],
  },
]);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
