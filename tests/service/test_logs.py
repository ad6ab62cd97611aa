import io
import logging

from firmware_host.config import LogSettings
from firmware_host.service.logs import setup_logging


def test_records_go_to_stderr_and_to_a_rotating_file(tmp_path):
    settings = LogSettings(file=tmp_path / "logs" / "tavli-board.log", level="info", max_bytes=2000, backups=2)
    stream = io.StringIO()
    setup_logging(settings, stream)
    logger = logging.getLogger("firmware_host.test")
    for number in range(100):
        logger.info("line %d with some words to fill the log", number)
    logger.debug("not at info level")
    assert "line 99" in stream.getvalue() and "not at info level" not in stream.getvalue()
    assert "line 99" in settings.file.read_text()
    assert (tmp_path / "logs" / "tavli-board.log.2").exists() and not (tmp_path / "logs" / "tavli-board.log.3").exists()
    assert settings.file.stat().st_size <= 2000


def test_a_log_file_that_cannot_be_written_leaves_stderr(tmp_path):
    (tmp_path / "blocker").write_text("a file, not a folder")
    stream = io.StringIO()
    handlers = setup_logging(LogSettings(file=tmp_path / "blocker" / "t.log"), stream)
    assert len(handlers) == 1 and "logging to stderr only" in stream.getvalue()
    logging.getLogger("firmware_host.test").warning("still heard")
    assert "still heard" in stream.getvalue()


def test_setting_up_again_replaces_the_handlers(tmp_path):
    settings = LogSettings(file=tmp_path / "t.log")
    setup_logging(settings, io.StringIO())
    second = io.StringIO()
    setup_logging(settings, second)
    ours = [handler for handler in logging.getLogger().handlers if getattr(handler, "_tavli_board", False)]
    assert len(ours) == 2


def test_the_state_machine_librarys_chatter_is_heard_only_when_debugging(tmp_path):
    stream = io.StringIO()
    setup_logging(LogSettings(file=tmp_path / "t.log", level="info"), stream)
    logging.getLogger("transitions.core").info("Executed callback 'begin_game'")
    logging.getLogger("transitions.core").warning("a problem in the machine")
    assert "Executed callback" not in stream.getvalue() and "a problem in the machine" in stream.getvalue()
    setup_logging(LogSettings(file=tmp_path / "t.log", level="debug"), stream)
    logging.getLogger("transitions.core").info("Finished processing state setup exit callbacks.")
    assert "Finished processing" in stream.getvalue()
