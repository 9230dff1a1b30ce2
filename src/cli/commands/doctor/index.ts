export { doctorCommand, runDoctor } from "./doctor.js";
export { checkFailingTargets } from "./doctor-targets.js";
