"""A lecture room in the app, one file a job. The room itself lives in the rooms package
(SQLite or Redis, shared by every server process); these draw it on the app's pages.

- keys: every key the room keeps in the session, named once;
- membership: who the session is in its room, settled at the top of every page, and the
  room's messages for the page;
- entry: Start a room, Join one by its code, Close it;
- links: the addresses the room gives (students', the room's screen, a lecturer link);
- sidebar: the sidebar's room box (lead the room, or follow it) and a student's bar;
- element: the room element (static/room.js), which keeps the tab in its room;
- join_panel: the code, link, QR code and word across the page, for the projector;
- polls: a question as a poll of the room, with its rounds, live count and reveal;
- picture: the class's predicted picture beside the model's;
- question: the lecturer's own question, asked and shown;
- check: the concept check and its gains; report: the lecture's report file;
- poll_bars: the figures of the room's answers; tick: the clock of the fragments that read
  the room again while the page is idle.

Following is a switch of the student's own (`?follow=false` when off): on, the tab goes to the
room's screen; off, the student explores the app.
"""
