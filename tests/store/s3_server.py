"""A local S3-compatible server (moto's server mode on 127.0.0.1) for the object-store tests."""

from __future__ import annotations

import logging
import uuid

import boto3
from moto.server import ThreadedMotoServer


class LocalS3:
    """Start with `with LocalS3() as s3:`; `s3.storage_options` reach it through s3fs."""

    def __enter__(self) -> "LocalS3":
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self._server.start()
        host, port = self._server.get_host_and_port()
        self.endpoint = f"http://{host}:{port}"
        self.bucket = f"webmend-{uuid.uuid4().hex[:8]}"
        creds = {"aws_access_key_id": "test", "aws_secret_access_key": "test", "region_name": "us-east-1"}
        boto3.client("s3", endpoint_url=self.endpoint, **creds).create_bucket(Bucket=self.bucket)
        self.storage_options = {
            "key": "test", "secret": "test", "skip_instance_cache": True,
            "client_kwargs": {"endpoint_url": self.endpoint, "region_name": "us-east-1"},
        }
        return self

    def __exit__(self, *exc) -> None:
        self._server.stop()
