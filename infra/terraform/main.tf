# The bucket side of georefresh on AWS S3: the lifecycle rules behind gc, a bucket policy that refuses writes
# which could overwrite published objects, and a least-privilege policy for the job role. Apply with
#   terraform init && terraform apply -var bucket=my-geo-bucket -var prefix=georefresh
# (not run here: no terraform and no AWS account on the build machine; `npm test` parses this file only).

terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.70"
    }
  }
}

variable "bucket" {
  type        = string
  description = "The bucket of the georefresh store URL s3://BUCKET/PREFIX"
}

variable "prefix" {
  type        = string
  default     = "georefresh"
  description = "The PREFIX of the store URL, without slashes at either end"
}

variable "job_role_name" {
  type        = string
  default     = "georefresh-job"
  description = "The IAM role the jobs run as (IRSA on EKS, the job role on AWS Batch)"
}

locals {
  root = "${var.prefix}/"
}

resource "aws_s3_bucket" "store" {
  bucket = var.bucket
}

# Artifacts are write-once and manifests keep their own history: versioning adds nothing georefresh needs.
resource "aws_s3_bucket_lifecycle_configuration" "store" {
  bucket = aws_s3_bucket.store.id

  # Artifacts written aside and never promoted (a killed run): gc removes them after 1 h; this is the net.
  rule {
    id     = "expire-temporary-artifacts"
    status = "Enabled"
    filter {
      prefix = "${local.root}_tmp/"
    }
    expiration {
      days = 2
    }
  }

  rule {
    id     = "abort-incomplete-multipart-uploads"
    status = "Enabled"
    filter {
      prefix = local.root
    }
    abort_incomplete_multipart_upload {
      days_after_initiation = 1
    }
  }
}

resource "aws_s3_bucket_public_access_block" "store" {
  bucket                  = aws_s3_bucket.store.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

# A PutObject on artifacts/ without If-None-Match could replace published bytes, and one on manifests/ or
# snapshots/ without If-None-Match or If-Match could lose a promotion or a snapshot: refuse them, whoever sends them.
data "aws_iam_policy_document" "bucket" {
  statement {
    sid       = "ArtifactsAreWriteOnce"
    effect    = "Deny"
    actions   = ["s3:PutObject"]
    resources = ["${aws_s3_bucket.store.arn}/${local.root}artifacts/*"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Null"
      variable = "s3:if-none-match"
      values   = ["true"]
    }
  }

  statement {
    sid       = "ManifestsAreConditional"
    effect    = "Deny"
    actions   = ["s3:PutObject"]
    resources = ["${aws_s3_bucket.store.arn}/${local.root}manifests/*"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Null"
      variable = "s3:if-none-match"
      values   = ["true"]
    }
    condition {
      test     = "Null"
      variable = "s3:if-match"
      values   = ["true"]
    }
  }

  # Snapshots are created once under their content id, and the latest pointer moves by If-Match.
  statement {
    sid       = "SnapshotsAreConditional"
    effect    = "Deny"
    actions   = ["s3:PutObject"]
    resources = ["${aws_s3_bucket.store.arn}/${local.root}snapshots/*"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Null"
      variable = "s3:if-none-match"
      values   = ["true"]
    }
    condition {
      test     = "Null"
      variable = "s3:if-match"
      values   = ["true"]
    }
  }

  statement {
    sid       = "TlsOnly"
    effect    = "Deny"
    actions   = ["s3:*"]
    resources = [aws_s3_bucket.store.arn, "${aws_s3_bucket.store.arn}/*"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

resource "aws_s3_bucket_policy" "store" {
  bucket = aws_s3_bucket.store.id
  policy = data.aws_iam_policy_document.bucket.json
}

# What the jobs do: read and write under the prefix, list it, delete (gc only), clean up multipart uploads.
data "aws_iam_policy_document" "job" {
  statement {
    sid       = "ListTheStore"
    actions   = ["s3:ListBucket", "s3:ListBucketMultipartUploads"]
    resources = [aws_s3_bucket.store.arn]
    condition {
      test     = "StringLike"
      variable = "s3:prefix"
      values   = ["${local.root}*"]
    }
  }

  statement {
    sid       = "ReadAndWriteTheStore"
    actions   = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"]
    resources = ["${aws_s3_bucket.store.arn}/${local.root}*"]
  }
}

resource "aws_iam_policy" "job" {
  name   = "${var.job_role_name}-store"
  policy = data.aws_iam_policy_document.job.json
}

resource "aws_iam_role_policy_attachment" "job" {
  role       = var.job_role_name
  policy_arn = aws_iam_policy.job.arn
}

output "store_url" {
  value = "s3://${var.bucket}/${var.prefix}"
}
