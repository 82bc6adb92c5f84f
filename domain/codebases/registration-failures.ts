/**
 * Failure types of the codebase registration activity: the workflow must not retry them, and
 * the API maps them to a 4xx. Here, in domain/, so the workflow and the activity share them.
 */
export const CLONE_FAILED = 'CloneFailed';
export const REGISTRATION_REFUSED = 'RegistrationRefused';
