/**
 * Which workflow schedules should exist: for each registered codebase, each workflow it sees
 * (its own, Archon's folder, the bundled ones) that declares a `schedule`, unless the schedule
 * names another codebase. Read from the files each time: a schedule follows its file.
 */
import { listCodebases, type Codebase } from '../../db/repositories/codebases.js';
import { workflowScheduleId } from '../../domain/runs/schedule-contract.js';
import {
  validateWorkflowDefinition,
  type WorkflowSchedule,
} from '../../domain/workflow-definitions/index.js';
import type { ServiceContext } from '../context.js';
import { discoverWorkflows } from '../workflow-definitions/discover-workflows.js';
import type { ItemSource } from '../workflow-definitions/bundled-library.js';

export interface PlannedSchedule {
  id: string;
  codebaseId: string;
  codebaseName: string;
  workflowName: string;
  /** Where the workflow comes from: a bundled one's schedule starts paused. */
  source: ItemSource;
  schedule: WorkflowSchedule;
}

/** The workflows of one codebase, as a run of them would be found. */
async function scheduledWorkflowsOf(context: ServiceContext, codebase: Codebase): Promise<PlannedSchedule[]> {
  const defaults = context.config.forRepository(codebase.sourcePath).effective.defaults;
  const { workflows } = await discoverWorkflows({
    cwd: codebase.sourcePath,
    loadBundled: defaults.loadDefaultWorkflows,
    loadArchon: defaults.loadArchonFolders,
  });
  return workflows.flatMap((entry) => {
    if (entry.workflow.schedule === undefined) return [];
    const checked = validateWorkflowDefinition(entry.workflow);
    const schedule = checked.valid ? checked.definition.schedule : undefined;
    if (!schedule) return [];
    if (
      schedule.codebase !== undefined &&
      schedule.codebase !== codebase.name &&
      schedule.codebase !== codebase.id
    )
      return [];
    return [
      {
        id: workflowScheduleId(codebase.id, entry.name),
        codebaseId: codebase.id,
        codebaseName: codebase.name,
        workflowName: entry.name,
        source: entry.source,
        schedule,
      },
    ];
  });
}

/** Every schedule the registered codebases' workflows declare, by codebase then workflow name. */
export async function plannedSchedules(context: ServiceContext): Promise<PlannedSchedule[]> {
  const planned: PlannedSchedule[] = [];
  for (const codebase of await listCodebases(context.db.reader))
    planned.push(...(await scheduledWorkflowsOf(context, codebase)));
  return planned;
}
