"""posviz for a class: replicas, Redis and HAProxy under supervisord (python -m deploy.up)."""
