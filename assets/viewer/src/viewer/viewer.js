// The follower's screen and the offline file: draws a page's document (ui/doc.py's blocks,
// blocks.js) with the app's own chart module, KaTeX for formulas and markdown-it for text.
//
// In a room (#posviz-room, the room the page the server sends shows), it follows the lecturer
// (follow.js) and asks the room's questions (question.js). In a downloaded file
// (#posviz-file), it draws the file's documents once, with the answers behind buttons
// (file.js).

import { drawFile } from "./file.js";
import { start } from "./follow.js";
import { file } from "./screen.js";

if (file) drawFile();
else start();
