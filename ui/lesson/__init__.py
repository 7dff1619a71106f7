"""The guided lesson (pages/0_lesson.py), part by part: its eleven scenes (`scenes`), the
question each asks and where it goes (`questions`), and the pager that picks the scene
(`pager`). The lesson's end is ui.lesson_end."""
