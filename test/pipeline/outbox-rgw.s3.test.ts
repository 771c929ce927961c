import { describeOutbox } from "./outbox.js";

describeOutbox("s3");
