// One article job from the page's side: started, polled to its end, cancelled. The poller
// is separate from the dialog so a job can be followed after its dialog closed: closing
// cancels the job, and the dialog learns how it really ended (a job can finish before the
// cancel arrives), so no file is ever written unseen.

import { getJson, postJson } from "./api.js";

const POLL_MS = 250;

/** Start a job; answers its first snapshot, or throws the endpoint's sentence. */
export function startJob(body) {
  return postJson("/generate", body);
}

/** Polls one job until it ends; ``onUpdate`` gets each running snapshot, ``onEnd`` the last
 * (a poll that fails ends it as failed with the sentence). The handlers may be swapped. */
export class JobPoller {
  constructor(jobId, onUpdate, onEnd) {
    this.id = jobId;
    this.onUpdate = onUpdate;
    this.onEnd = onEnd;
    this.timer = 0;
    this.ended = false;
    this.poll();
  }

  async poll() {
    let snapshot;
    try {
      snapshot = await getJson("/generate-progress", { jobId: this.id });
    } catch (error) {
      snapshot = { status: "failed", error: error.message };
    }
    if (this.ended) return;
    if (snapshot.status === "running") {
      this.onUpdate(snapshot);
      this.timer = setTimeout(() => this.poll(), POLL_MS);
    } else {
      this.ended = true;
      this.onEnd(snapshot);
    }
  }

  /** Ask the server to cancel; the next polls say how the job ended. */
  async cancel() {
    try {
      await postJson("/generate-cancel", { jobId: this.id });
    } catch {
      // the polls show how the job ended
    }
  }
}
